/// The plain-text summary `run` and `merge` print: first what to fix first (at most `fixFirstShown` root
/// causes, `RootCauseAnalysis`), then one line per requirement; each failed, warned or expected failure with
/// the requirement's statement, the design's words and at most `findingsShown` findings, each collapsed over
/// the cases it shows up in; the errored cases; the cases that could not run, by reason; the expected
/// failures; the certification verdicts and the totals. The last lines say the verdict and, when a case
/// errored, that the run fails for it. Every line fits `width` (cut with an ellipsis); case lists say how many
/// cases they leave to the reports.
public enum TextSummaryWriter {
    /// Root causes in the "Fix first" list.
    public static let fixFirstShown = 5
    /// Findings shown per requirement; the reports keep the others.
    public static let findingsShown = 3
    /// Evidence event numbers shown per finding.
    static let evidenceShown = 3

    /// `width`: the terminal's (`ConsoleWidth.current()`); nil cuts nothing. The last line, the totals and the
    /// verdict, is never cut: CI logs grep it.
    public static func render(_ report: ComplianceReport, verbose: Bool = false, width: Int? = nil) -> String {
        let width = width ?? .max
        var lines: [String] = []
        var exempt: Set<Int> = []
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
            if !failure.stderrTail.isEmpty { lines += ["adapter stderr (tail):"] + quoted(failure.stderrTail, indent: "  ") }
            lines.append("hint: run the adapter's command by hand; its first line must be a 'hello' (docs/adapter-protocol.md)")
            lines.append("")
            lines.append("certification: " + report.certification.map { "\($0.profile) \(verdictWord($0.verdict))" }.joined(separator: "; ")
                         + " (no case ran)")
            lines.append(totals(report))
            return lines.map(ConsoleText.line).joined(separator: "\n") + "\n"
        }
        lines += fixFirst(report, width: width)
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
            lines.append(ConsoleWidth.fit(requirement.status.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0)
                         + requirement.level.padding(toLength: 7, withPad: " ", startingAt: 0) + requirement.id + detail, width))
        }
        if hidden > 0 {
            lines.append("(\(hidden) requirement\(hidden == 1 ? "" : "s") no selected case covers: not shown; --verbose lists them)")
        }
        lines += failures(report, verbose: verbose, width: width)
        if !lines.isEmpty, lines.last?.hasPrefix("  \(report.run.command) --case ID") == true { exempt.insert(lines.count - 1) }
        let erroredLines = erroredCases(report)
        exempt.formUnion(lines.count..<(lines.count + erroredLines.count))
        lines += erroredLines
        lines += realTimeWaits(report)
        lines += couldNotRun(report, verbose: verbose, width: width)
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
        // Every line fits, but the adapter's stderr, the commands to copy and the totals.
        // Client text is escaped (``ConsoleText``) before a line is fitted, so that the escapes count.
        lines = lines.enumerated().map { index, line in
            exempt.contains(index) ? ConsoleText.line(line) : ConsoleWidth.fit(ConsoleText.line(line), width)
        }
        lines.append(ConsoleText.line(totals(report)))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The root causes that block the most requirements, one line each: how many requirements and cases,
    /// then what.
    static func fixFirst(_ report: ComplianceReport, width: Int) -> [String] {
        let first = RootCauseAnalysis.fixFirst(report, limit: fixFirstShown)
        guard !first.isEmpty else { return [] }
        var lines = ["", "Fix first:"]
        for (index, cause) in first.enumerated() {
            lines.append(ConsoleWidth.fit("  \(index + 1). " + headline(cause), keeping: " (" + blocks(cause) + ")", width))
        }
        let more = (report.rootCauses ?? []).count - first.count
        if more > 0 {
            lines.append("  (\(more) more root cause\(more == 1 ? "" : "s") in the details below and in the reports)")
        }
        return lines
    }

    /// `blocks 12 requirements, 12 MUST; 32 cases`.
    static func blocks(_ cause: RootCause) -> String {
        let count = cause.requirements.count
        return "blocks \(count) requirement\(count == 1 ? "" : "s"), \(cause.mustRequirements) MUST; "
            + "\(cause.cases.count) case\(cause.cases.count == 1 ? "" : "s")"
    }

    /// What a root cause is, in a line: the reason and the advice, or the check and the finding.
    static func headline(_ cause: RootCause) -> String {
        switch cause.kind {
        case .inconclusive: cause.title + (cause.advice.map { "; \($0)" } ?? "")
        case .failure: "\(cause.check ?? "check"): " + FailureText.oneLine(cause.title)
        }
    }

    /// Each failed, warned or expected-to-fail requirement: the design's words, then its findings, each
    /// collapsed over the cases it shows up in.
    static func failures(_ report: ComplianceReport, verbose: Bool, width: Int = .max) -> [String] {
        let order: [RequirementReportStatus] = [.fail, .warn, .known]
        let failing = order.flatMap { status in report.requirements.filter { $0.status == status } }
        guard !failing.isEmpty else { return [] }
        var lines: [String] = []
        for requirement in failing {
            lines.append("")
            lines.append(ConsoleWidth.fit("\(requirement.status.rawValue.uppercased()) \(requirement.level) \(requirement.id): "
                                          + requirement.title, width))
            if let expected = requirement.expectedFailure { lines.append(ConsoleWidth.fit("  expected failure: \(expected)", width)) }
            lines += ConsoleWidth.wrap("requirement: " + FailureText.oneLine(requirement.statement), width, indent: "  ")
            for quote in requirement.quotes {
                lines.append(ConsoleWidth.fit("  design (\(quote.document)): \"\(FailureText.oneLine(quote.quote))\"", width))
            }
            let groups = EvidenceGroup.groups(requirement, report: report)
            let shown = verbose ? groups[...] : groups.prefix(findingsShown)
            for group in shown {
                let evidence = group.first
                let more = evidence.events.count - evidenceShown
                let events = evidence.events.isEmpty ? "" : " [evidence "
                    + evidence.events.prefix(evidenceShown).map { "#\($0)" }.joined(separator: " ")
                    + (more > 0 ? " and \(more) more" : "") + "]"
                lines.append(ConsoleWidth.fit("  - case \(evidence.caseID), step \(evidence.step) (\(evidence.stepKind)), \(evidence.check): "
                                              + evidence.fullMessage + events, width))
                if group.cases.count > 1 {
                    let ids = group.cases.map(\.self)
                    lines += verbose ? ConsoleWidth.wrap("the same in \(ids.count) cases: " + ids.joined(separator: ", "), width, indent: "    ")
                        : [ConsoleWidth.cases(ids, width, prefix: "    the same in \(ids.count) cases: ")]
                }
            }
            let hidden = groups.count - shown.count
            if hidden > 0 {
                lines.append("  ... \(hidden) more finding\(hidden == 1 ? "" : "s") in the report (--report html, or --verbose)")
            }
        }
        lines.append("")
        lines.append("trace and reproduce: write a report (--report html=report.html), or rerun one case:")
        lines.append("  \(report.run.command) --case ID --seed \(report.run.seed)")
        return lines
    }

    /// The cases that could not run, one block per reason: what the client did not do, the cases, and the first
    /// case's own words.
    static func couldNotRun(_ report: ComplianceReport, verbose: Bool, width: Int) -> [String] {
        var lines: [String] = []
        for cause in report.rootCauses ?? [] where cause.kind == .inconclusive {
            let stopped = cause.cases.compactMap(report.testCase).filter { $0.status == .inconclusive || $0.status == .skipped }
            guard let first = stopped.first else { continue }
            lines.append("")
            let requirements = cause.requirements.count
            let failed = cause.cases.count - stopped.count
            lines.append(ConsoleWidth.fit("COULD NOT RUN: \(cause.title)", keeping: " (\(stopped.count) case\(stopped.count == 1 ? "" : "s")"
                + (failed > 0 ? ", and \(failed) failed for it" : "")
                + "; blocks \(requirements) requirement\(requirements == 1 ? "" : "s"), \(cause.mustRequirements) MUST)", width))
            if let advice = cause.advice { lines.append(ConsoleWidth.fit("  what to do: \(advice)", width)) }
            let ids = stopped.map(\.id)
            lines += verbose ? ConsoleWidth.wrap("cases: " + ids.joined(separator: ", "), width, indent: "  ")
                : [ConsoleWidth.cases(ids, width, prefix: "  \(ids.count) case\(ids.count == 1 ? "" : "s"): ")]
            let status = first.status == .inconclusive ? "inconclusive" : "skipped"
            lines.append(ConsoleWidth.fit("  first, \(first.id) (\(status)): \(first.reason ?? "a precondition did not hold")", width))
            if let checks = first.wouldHaveChecked {
                lines.append(ConsoleWidth.fit("  it would have checked: " + checks.joined(separator: "; "), width))
            }
        }
        if !lines.isEmpty {
            lines.append("  (a case that could not run charges nothing and passes nothing: its requirements stay untested)")
        }
        return lines
    }

    static func erroredCases(_ report: ComplianceReport) -> [String] {
        var lines: [String] = []
        for testCase in report.cases where testCase.status == .error {
            if lines.isEmpty { lines.append("") }
            lines.append("ERROR case \(testCase.id) (\(testCase.file)): \(testCase.reason ?? "the adapter failed")")
            if let tail = testCase.stderrTail, !tail.isEmpty {
                lines.append("  adapter stderr (tail):")
                lines += quoted(tail, indent: "    ").suffix(15)
            }
            lines.append("  reproduce: \(testCase.reproduce)")
        }
        return lines
    }

    /// An adapter's output, one line of it per line, each after `indent` and `| `: no line of it starts a line of
    /// the summary (GitHub Actions reads a workflow command after leading spaces).
    static func quoted(_ text: String, indent: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { indent + "| " + $0 }
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
            ? report.explorationVerdict ?? (report.requirements.contains { $0.status == .known } ? "every MUST requirement passed or failed as expected"
                                                                    : "every MUST requirement passed")
            : "FAILED: " + (report.gate.reasons.first ?? "failed")
                + GateReasonCounts.more(report.gate.reasons.dropFirst())
        return "requirements: \(requirements.joined(separator: ", ")); cases: \(cases.isEmpty ? "none" : cases.joined(separator: ", ")); "
            + "seed \(report.run.seed): \(verdict)"
    }
}
