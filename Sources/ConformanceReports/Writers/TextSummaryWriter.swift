/// The plain-text summary `run` and `merge` print: one line per requirement; each failed, warned or expected
/// failure with the requirement's statement, the design's words and at most `findingsShown` findings; the
/// errored and inconclusive cases; the expected failures; the certification verdicts and the totals. The
/// last lines say the verdict and, when a case errored, that the run fails for it.
public enum TextSummaryWriter {
    /// Findings shown per requirement; the reports keep the others.
    public static let findingsShown = 3
    /// Evidence event numbers shown per finding.
    static let evidenceShown = 3

    public static func render(_ report: ComplianceReport, verbose: Bool = false) -> String {
        var lines: [String] = []
        if let implementation = report.adapter.implementation {
            let capabilities = report.adapter.capabilities.isEmpty ? "none" : report.adapter.capabilities.joined(separator: ", ")
            lines.append("client: \(implementation.name) \(implementation.version) (\(implementation.language), "
                         + "\(implementation.platform)); capabilities: \(capabilities)")
        }
        if let world = report.run.world { lines.append("world: \(world)") }
        lines.append("spec version: \(report.spec.versionText) (CHANGELOG.md says what each version changed)")
        if let shard = report.run.shard { lines.append("shard \(shard): \(Plural.count(report.cases.count, "case"))") }
        if let failure = report.run.startupFailure {
            // One clear error: no case ran, so a list of untested requirements would only hide it.
            lines.append("error: the adapter could not be started: \(failure.message)")
            if !failure.stderrTail.isEmpty { lines.append("adapter stderr (tail):\n" + failure.stderrTail) }
            lines.append("hint: run the adapter's command by hand; its first line must be a 'hello' (docs/adapter-protocol.md)")
            lines.append("")
            lines.append("certification: " + report.certification.map { "\($0.profile) \(verdictWord($0.verdict))" }.joined(separator: "; ")
                         + " (no case ran)")
            lines.append(totals(report))
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("")
        var hidden = 0
        for requirement in report.requirements where verbose || requirement.status != .notTestable {
            // A filtered run lists the requirements its cases cover, not every one it did not touch.
            if report.isPartial && requirement.cases.isEmpty && !verbose {
                hidden += 1
                continue
            }
            let cases = requirement.cases.map(\.id).joined(separator: ", ")
            let detail = requirement.expectedFailure.map { " (expected: \($0))" }
                ?? requirement.reason.map { " (\($0))" } ?? (cases.isEmpty ? "" : "  [\(cases)]")
            lines.append(requirement.status.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0)
                         + requirement.level.padding(toLength: 7, withPad: " ", startingAt: 0) + requirement.id + detail)
        }
        if hidden > 0 {
            lines.append("(\(hidden) requirement\(hidden == 1 ? "" : "s") no selected case covers: not shown; --verbose lists them)")
        }
        lines += failures(report, verbose: verbose)
        lines += erroredCases(report)
        lines += realTimeWaits(report)
        let inconclusive = report.cases.filter { $0.status == .inconclusive }
        if !inconclusive.isEmpty {
            lines.append("")
            for testCase in inconclusive {
                lines.append("INCONCLUSIVE case \(testCase.id): \(testCase.reason ?? "a precondition did not hold") "
                             + "(it charges nothing and passes nothing)")
                if let checks = testCase.wouldHaveChecked {
                    lines.append("  it would have checked: " + checks.joined(separator: "; "))
                }
            }
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
        let errored = report.cases.filter { $0.status == .error }
        if !errored.isEmpty {
            lines.append("errors: \(errored.count) case\(errored.count == 1 ? "" : "s") could not run to the end ("
                         + errored.prefix(5).map(\.id).joined(separator: ", ") + (errored.count > 5 ? ", ..." : "")
                         + "): an error fails the run, whatever --expected-failures says")
        }
        lines.append(totals(report))
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each failed, warned or expected-to-fail requirement: the design's words, then its findings.
    static func failures(_ report: ComplianceReport, verbose: Bool) -> [String] {
        let order: [RequirementReportStatus] = [.fail, .warn, .known]
        let failing = order.flatMap { status in report.requirements.filter { $0.status == status } }
        guard !failing.isEmpty else { return [] }
        var lines: [String] = []
        for requirement in failing {
            lines.append("")
            lines.append("\(requirement.status.rawValue.uppercased()) \(requirement.level) \(requirement.id): \(requirement.title)")
            if let expected = requirement.expectedFailure { lines.append("  expected failure: \(expected)") }
            lines.append("  requirement: \(FailureText.oneLine(requirement.statement))")
            for quote in requirement.quotes {
                lines.append("  design (\(quote.document)): \"\(FailureText.oneLine(quote.quote))\"")
            }
            let shown = verbose ? requirement.evidence[...] : requirement.evidence.prefix(findingsShown)
            for evidence in shown {
                let more = evidence.events.count - evidenceShown
                let events = evidence.events.isEmpty ? "" : " [evidence "
                    + evidence.events.prefix(evidenceShown).map { "#\($0)" }.joined(separator: " ")
                    + (more > 0 ? " and \(more) more" : "") + "]"
                lines.append("  - case \(evidence.caseID), step \(evidence.step) (\(evidence.stepKind)), \(evidence.check): "
                             + evidence.fullMessage + events)
            }
            let hidden = requirement.evidence.count - shown.count
            if hidden > 0 {
                lines.append("  ... \(hidden) more finding\(hidden == 1 ? "" : "s") in the report (--report html, or --verbose)")
            }
        }
        lines.append("")
        lines.append("trace and reproduce: write a report (--report html=report.html), or rerun one case: "
                     + "\(report.run.command) --case ID --seed \(report.run.seed)")
        return lines
    }

    static func erroredCases(_ report: ComplianceReport) -> [String] {
        var lines: [String] = []
        for testCase in report.cases where testCase.status == .error {
            if lines.isEmpty { lines.append("") }
            lines.append("ERROR case \(testCase.id) (\(testCase.file)): \(testCase.reason ?? "the adapter failed")")
            if let tail = testCase.stderrTail, !tail.isEmpty {
                lines.append("  adapter stderr (tail):")
                lines += tail.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).map { "    " + $0 }
            }
            lines.append("  reproduce: \(testCase.reproduce)")
        }
        return lines
    }

    /// Cases in which the adapter let real time pass in silence, and what to do about it.
    static func realTimeWaits(_ report: ComplianceReport) -> [String] {
        let cases = RealTimeWaitText.caseLines(report)
        guard !cases.isEmpty else { return [] }
        return [""] + cases.map { "REAL TIME " + ($0.caseID.map { "case \($0): " } ?? "") + $0.text }
            + ["  (\(RealTimeWaitText.explanation))"]
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
            : "FAILED: " + (report.gate.reasons.first ?? "failed")
                + GateReasonCounts.more(report.gate.reasons.dropFirst())
        return "requirements: \(requirements.joined(separator: ", ")); cases: \(cases.isEmpty ? "none" : cases.joined(separator: ", ")); "
            + "seed \(report.run.seed): \(verdict)"
    }
}
