import Foundation

/// TAP version 13: one test point per requirement, in catalogue order, with a YAML diagnostic block for
/// everything that did not simply pass.
///
/// - `pass`: `ok`.
/// - `fail`, `error`, and an untested MUST of a whole-suite run: `not ok` (what fails the gate, plus errors).
/// - `warn` (a SHOULD or MAY that failed) and `known` (an expected failure): `not ok ... # TODO`, which
///   harnesses count as a failure that does not fail the run.
/// - an expected failure that passed: `ok ... # TODO`, which harnesses report as an unexpected success.
/// - a requirement left untested by inconclusive cases (outside an untested MUST of a whole-suite run):
///   `ok ... # SKIP inconclusive: case: reason`.
/// - `skipped`, `notTestable`, and untested requirements otherwise: `ok ... # SKIP reason`.
///
/// A diagnostic block carries the requirement's statement and the design's verbatim quotes.
public enum TAPReportWriter {
    public static func render(_ report: ComplianceReport) -> String {
        var lines = ["TAP version 13"]
        lines.append("1..\(report.requirements.count)")
        lines.append(line("# session-conformance \(report.suite.version); spec version \(report.spec.versionText) \(report.spec.digest); "
                          + "seed \(report.run.seed)" + (report.run.world.map { "; world \($0)" } ?? "")))
        let client = report.adapter.implementation.map { "\($0.name) \($0.version)" } ?? report.adapter.description
        lines.append("# client: \(line(client)); capabilities: "
                     + (report.adapter.capabilities.isEmpty ? "none" : line(report.adapter.capabilities.joined(separator: ", "))))
        if let shard = report.run.shard { lines.append("# shard \(shard)") }
        if let explored = report.explorationVerdict { lines.append("# exploration: \(line(explored))") }
        if let failure = report.run.startupFailure { lines.append("# the adapter could not be started: \(line(failure.message))") }
        let first = RootCauseAnalysis.fixFirst(report, limit: TextSummaryWriter.fixFirstShown)
        if !first.isEmpty { lines.append("# fix first:") }
        for (index, cause) in first.enumerated() {
            lines.append("# \(index + 1). \(line(cause.summary))" + (cause.advice.map { "; \(line($0))" } ?? "")
                         + " (blocks \(cause.requirements.count) requirements, \(cause.mustRequirements) MUST; \(cause.cases.count) cases)")
        }
        let unexpected = Set(report.expectedFailures?.unexpectedPasses.map(\.id) ?? [])
        for (offset, requirement) in report.requirements.enumerated() {
            let number = offset + 1
            // A '#' in a description would start a directive: TAP escapes it with a backslash.
            let description = line("\(requirement.id) (\(requirement.level)) \(requirement.title)")
                .replacingOccurrences(of: "#", with: "\\#")
            switch requirement.status {
            case .pass where unexpected.contains(requirement.id):
                let reason = report.expectedFailures?.entries.first { $0.id == requirement.id }?.reason ?? ""
                lines.append("ok \(number) - \(description) # TODO expected to fail: \(line(reason))")
            case .pass:
                lines.append("ok \(number) - \(description)")
            case .fail, .error:
                lines.append("not ok \(number) - \(description)")
                lines += diagnostics(requirement, report: report)
            case .untested where requirement.level == "MUST" && !report.isPartial:
                lines.append("not ok \(number) - \(description)")
                lines += diagnostics(requirement, report: report)
            case .warn where report.run.exploration != nil:
                // An exploration fails on any failure it found, a SHOULD's too.
                lines.append("not ok \(number) - \(description)")
                lines += diagnostics(requirement, report: report)
            case .warn:
                lines.append("not ok \(number) - \(description) # TODO \(requirement.level) requirement: a warning, not a failure")
                lines += diagnostics(requirement, report: report)
            case .known:
                lines.append("not ok \(number) - \(description) # TODO expected failure: \(line(requirement.expectedFailure ?? ""))")
                lines += diagnostics(requirement, report: report)
            case .untested where requirement.cases.contains { $0.status == .inconclusive }:
                lines.append("ok \(number) - \(description) # SKIP inconclusive: \(line(inconclusiveReason(requirement, report: report)))")
            case .skipped, .untested, .notTestable:
                let reason = requirement.reason ?? requirement.status.rawValue
                lines.append("ok \(number) - \(description) # SKIP \(line(reason))")
            }
        }
        for (id, verdict) in report.certification.map({ ($0.profile, $0.verdict) }) {
            lines.append("# certification \(line(id)): \(TextSummaryWriter.verdictWord(verdict))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A YAML block (indented two spaces, between `---` and `...`), in the YAMLish subset TAP consumers
    /// read: block mappings and lists, double-quoted scalars, no flow collections or block scalars.
    private static func diagnostics(_ requirement: RequirementReport, report: ComplianceReport) -> [String] {
        var block = ["  ---", "  status: \(requirement.status.rawValue)", "  level: \(scalar(requirement.level))"]
        if let reason = requirement.reason { block.append("  reason: \(scalar(reason))") }
        if let expected = requirement.expectedFailure { block.append("  expected: \(scalar(expected))") }
        if requirement.status != .pass, let cause = report.rootCauses?.first(where: { $0.requirements.contains(requirement.id) }) {
            block.append("  rootCause: \(scalar(cause.summary + " (" + cause.id + ", \(cause.cases.count) cases)"))")
        }
        block.append("  statement: \(scalar(requirement.statement))")
        if !requirement.quotes.isEmpty {
            block.append("  quotes:")
            for quote in requirement.quotes {
                block.append("    - document: \(scalar(quote.document))")
                block.append("      quote: \(scalar(quote.quote))")
            }
        }
        if !requirement.cases.isEmpty {
            block.append("  cases:")
            for reference in requirement.cases {
                block.append("    - id: \(scalar(reference.id))")
                block.append("      status: \(reference.status.rawValue)")
            }
        }
        if !requirement.evidence.isEmpty {
            block.append("  evidence:")
            for evidence in requirement.evidence {
                block.append("    - case: \(scalar(evidence.caseID))")
                block.append("      step: \(evidence.step)")
                block.append("      check: \(scalar(evidence.check))")
                block.append("      message: \(scalar(evidence.fullMessage))")
                block.append("      occurrences: \(evidence.occurrences)")
                if !evidence.events.isEmpty {
                    block.append("      events:")
                    block += evidence.events.map { "        - \($0)" }
                }
                block.append("      reproduce: \(scalar(evidence.reproduce))")
                if !evidence.excerpt.isEmpty {
                    block.append("      trace:")
                    block += evidence.excerpt.map { "        - " + scalar($0) }
                }
            }
        }
        let errored = report.cases.filter { testCase in testCase.status == .error && requirement.cases.contains { $0.id == testCase.id } }
        for testCase in errored {
            block.append("  error:")
            block.append("    case: \(scalar(testCase.id))")
            block.append("    reason: \(scalar(testCase.reason ?? "the adapter failed"))")
            block.append("    reproduce: \(scalar(testCase.reproduce))")
        }
        block.append("  ...")
        return block
    }

    /// The inconclusive cases covering a requirement, each with why.
    private static func inconclusiveReason(_ requirement: RequirementReport, report: ComplianceReport) -> String {
        requirement.cases.filter { $0.status == .inconclusive }.map { reference in
            "\(reference.id): " + (report.testCase(reference.id)?.reason ?? "a precondition did not hold")
        }.joined(separator: "; ")
    }

    /// One line (TAP is line-based): client text through the console's escaping (``ConsoleText``), so no
    /// line break, carriage return or escape sequence of it can start a line of its own.
    static func line(_ text: String) -> String { ConsoleText.escaped(text) }

    /// A double-quoted YAML scalar (``YAMLText``).
    static func scalar(_ text: String) -> String { YAMLText.quoted(text) }
}
