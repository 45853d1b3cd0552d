/// The plain-text summary `run` and `merge` print: one line per requirement, each failure with its evidence,
/// the expected failures, the certification verdicts and the totals.
public enum TextSummaryWriter {
    public static func render(_ report: ComplianceReport, verbose: Bool = false) -> String {
        var lines: [String] = []
        if let implementation = report.adapter.implementation {
            let capabilities = report.adapter.capabilities.isEmpty ? "none" : report.adapter.capabilities.joined(separator: ", ")
            lines.append("client: \(implementation.name) \(implementation.version) (\(implementation.language), "
                         + "\(implementation.platform)); capabilities: \(capabilities)")
        }
        if let shard = report.run.shard { lines.append("shard \(shard): \(report.cases.count) cases") }
        if let failure = report.run.startupFailure {
            lines.append("error: the adapter could not be started: \(failure.message)")
            if !failure.stderrTail.isEmpty { lines.append("adapter stderr (tail):\n" + failure.stderrTail) }
        }
        lines.append("")
        for requirement in report.requirements where verbose || requirement.status != .notTestable {
            let cases = requirement.cases.map(\.id).joined(separator: ", ")
            let detail = requirement.expectedFailure.map { " (expected: \($0))" }
                ?? requirement.reason.map { " (\($0))" } ?? (cases.isEmpty ? "" : "  [\(cases)]")
            lines.append(requirement.status.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0)
                         + requirement.level.padding(toLength: 7, withPad: " ", startingAt: 0) + requirement.id + detail)
        }
        let failing = report.cases.filter { [.fail, .error, .known].contains($0.status) }
        if !failing.isEmpty { lines.append("") }
        for testCase in failing {
            let label = testCase.status == .error ? "ERROR" : testCase.status == .known ? "KNOWN" : "FAIL"
            lines.append("\(label) case \(testCase.id) (\(testCase.file))")
            if let expected = testCase.expectedFailure { lines.append("  expected failure: \(expected)") }
            if let reason = testCase.reason, testCase.status == .error {
                lines.append("  \(reason)")
                if let tail = testCase.stderrTail, !tail.isEmpty {
                    lines.append("  adapter stderr (tail):")
                    lines += tail.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).map { "    " + $0 }
                }
            }
            for finding in testCase.findings {
                lines.append("  [\(finding.requirements.joined(separator: ", "))] step \(finding.step), \(finding.check): \(finding.message)")
                if !finding.events.isEmpty {
                    lines.append("    evidence: " + finding.events.map { "#\($0)" }.joined(separator: " "))
                    lines += TraceExcerpt.lines(testCase.trace, around: finding.events, context: 1, limit: 12).map { "      " + $0 }
                }
            }
            lines.append("  reproduce: \(testCase.reproduce)")
        }
        if let expected = report.expectedFailures {
            lines.append("")
            let known = expected.entries.filter { $0.outcome == .known }.count
            lines.append("expected failures (\(expected.file)): \(known) of \(expected.entries.count) failed as expected")
            for entry in expected.entries where entry.outcome != .known {
                let what: String = switch entry.outcome {
                case .unexpectedPass: "now passes" + (expected.strict ? " (the gate fails: remove it, or pass --allow-unexpected-passes)" : "")
                case .pending: "passed in this shard; the merged report decides"
                case .notRun: "not run"
                case .errored: "errored (an error is never an expected failure)"
                case .known: "failed as expected"
                }
                lines.append("  \(entry.id): \(what)")
            }
        }
        lines.append("")
        lines.append("certification: " + report.certification.map { "\($0.profile) \(verdictWord($0.verdict))" }.joined(separator: "; "))
        lines.append(totals(report))
        return lines.joined(separator: "\n") + "\n"
    }

    static func verdictWord(_ verdict: ProfileVerdict.Verdict) -> String {
        switch verdict {
        case .certified: "certified"
        case .notCertified: "NOT certified"
        case .notClaimed: "not claimed"
        case .incomplete: "incomplete"
        }
    }

    public static func totals(_ report: ComplianceReport) -> String {
        let requirements = RequirementReportStatus.allCases.compactMap { status -> String? in
            let count = report.summary.requirements[status.rawValue] ?? 0
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        let cases = CaseReportStatus.allCases.compactMap { status -> String? in
            let count = report.summary.cases[status.rawValue] ?? 0
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        let verdict = report.gate.passed
            ? (report.requirements.contains { $0.status == .known } ? "every MUST requirement passed or failed as expected"
                                                                    : "every MUST requirement passed")
            : (report.gate.reasons.first ?? "failed") + (report.gate.reasons.count > 1 ? " (and \(report.gate.reasons.count - 1) more)" : "")
        return "requirements: \(requirements.joined(separator: ", ")); cases: \(cases.isEmpty ? "none" : cases.joined(separator: ", ")); "
            + "seed \(report.run.seed): \(verdict)"
    }
}
