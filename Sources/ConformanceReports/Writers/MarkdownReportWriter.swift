/// GitHub-flavoured Markdown shaped for a pull-request comment: the verdict and a summary table first, then
/// what to fix first (the root causes that block the most requirements), then every failed MUST requirement's
/// statement with its first finding, then the failures, each folded in `<details>` with its findings collapsed
/// over the cases they show up in, then the cases that could not run, by reason, then the whole requirement
/// table, folded. Kept under GitHub's 65,536-character comment limit: the failed MUSTs' statements and first
/// findings always fit; past a budget, further failure details are listed by name only.
public enum MarkdownReportWriter {
    /// GitHub's limit for a comment, in characters.
    static let commentLimit = 65_536
    /// What the failure details may take at most, whatever room is left.
    static let failureBudget = 45_000

    public static func render(_ report: ComplianceReport) -> String {
        var out: [String] = []
        let client = report.adapter.implementation.map { "\($0.name) \($0.version)" } ?? report.adapter.description
        let certified = report.certification.filter { $0.verdict == .certified }.map(\.profile)
        let headline: String
        if report.run.startupFailure != nil {
            headline = "❌ session-conformance: \(cell(client)) could not be started"
        } else if let explored = report.explorationVerdict {
            headline = "\(report.gate.passed ? "✅" : "❌") session-conformance explore: \(cell(client)): \(cell(explored))"
        } else if report.isPartial {
            headline = "🧩 session-conformance: \(cell(client)), partial run" + (report.run.shard.map { " (shard \($0))" } ?? "")
        } else if report.certification.first?.verdict == .certified {
            headline = "✅ session-conformance: \(cell(client)) certified (\(certified.joined(separator: ", ")))"
        } else {
            headline = "❌ session-conformance: \(cell(client)) not certified"
        }
        out.append("## \(headline)")
        out.append("")
        out.append("Gate: **\(report.gate.passed ? "passed" : "failed")**"
                   + (report.gate.reasons.isEmpty ? "" : ": " + cell(report.gate.reasons.prefix(3).joined(separator: "; "))
                      + (report.gate.reasons.count > 3 ? "; and \(report.gate.reasons.count - 3) more" : "")))
        out.append("")
        out.append("| profile | verdict | MUST passed | warnings | blocking |")
        out.append("| --- | --- | --- | --- | --- |")
        for verdict in report.certification {
            let blocking = verdict.blocking.prefix(4).map { "`\(code($0.id))`" }.joined(separator: ", ")
                + (verdict.blocking.count > 4 ? ", ..." : "")
            out.append("| \(cell(verdict.profile)) | \(icon(verdict.verdict)) \(TextSummaryWriter.verdictWord(verdict.verdict)) | "
                       + "\(verdict.mustPassed)/\(verdict.mustTotal) | \(verdict.warnings.count) | \(blocking.isEmpty ? "" : blocking) |")
        }
        out.append("")
        let statuses = RequirementReportStatus.allCases
        out.append("| requirements | " + statuses.map(\.rawValue).joined(separator: " | ") + " |")
        out.append("| --- |" + String(repeating: " ---: |", count: statuses.count))
        out.append("| \(report.requirements.count) | "
                   + statuses.map { String(report.summary.requirements[$0.rawValue] ?? 0) }.joined(separator: " | ") + " |")
        out.append("")
        let caseStatuses = CaseReportStatus.allCases
        out.append("| cases | " + caseStatuses.map(\.rawValue).joined(separator: " | ") + " | time |")
        out.append("| --- |" + String(repeating: " ---: |", count: caseStatuses.count + 1))
        out.append("| \(report.cases.count) | " + caseStatuses.map { String(report.summary.cases[$0.rawValue] ?? 0) }.joined(separator: " | ")
                   + " | \(JUnitReportWriter.seconds(report.summary.durationSeconds)) s |")
        out.append("")

        if let failure = report.run.startupFailure {
            out.append("### The adapter could not be started")
            out.append("")
            out.append(MarkdownText.paragraph(failure.message))
            out.append("")
            if !failure.stderrTail.isEmpty { out += fenced(failure.stderrTail) }
        }

        out += fixFirst(report)
        let headlines = failedMusts(report)
        out += headlines
        // MUST failures first, then errors, warnings and expected failures.
        let failing = [RequirementReportStatus.fail, .error, .warn, .known].flatMap { status in
            report.requirements.filter { $0.status == status && $0.level == "MUST" }
                + report.requirements.filter { $0.status == status && $0.level != "MUST" }
        }
        let unexpected = report.expectedFailures?.unexpectedPasses ?? []
        // Everything after the failures, first: the failures get what room the comment has left.
        var tail: [String] = []
        tail += couldNotRun(report)

        tail += realTimeWaits(report)

        tail.append("<details><summary>All requirements (\(report.requirements.count))</summary>")
        tail.append("")
        tail.append("| status | level | requirement | cases |")
        tail.append("| --- | --- | --- | --- |")
        for requirement in report.requirements {
            let cases = requirement.cases.map { "\($0.id) (\($0.status.rawValue))" }.joined(separator: ", ")
            let detail = requirement.expectedFailure.map { "expected: \($0)" } ?? requirement.reason ?? cases
            tail.append("| \(statusIcon(requirement.status)) \(requirement.status.rawValue) | \(cell(requirement.level)) | "
                       + "`\(code(requirement.id))` \(cell(requirement.title)) | \(cell(detail)) |")
        }
        tail.append("")
        tail.append("</details>")
        tail.append("")
        tail.append("<details><summary>Run</summary>")
        tail.append("")
        tail.append("| | |")
        tail.append("| --- | --- |")
        tail.append("| suite | session-conformance \(cell(report.suite.version)) |")
        tail.append("| spec | version \(cell(report.spec.versionText)); `\(code(report.spec.digest))` (\(report.spec.files.count) files) |")
        tail.append("| client | \(cell(client)); capabilities: \(cell(report.adapter.capabilities.joined(separator: ", ")))"
                   + " |")
        tail.append("| adapter | `\(code(report.adapter.description))` |")
        tail.append("| seed | \(cell(report.run.seed)) |")
        if let world = report.run.world { tail.append("| world | \(cell(world)) |") }
        tail.append("| started, finished | \(cell(report.run.startedAt)), \(cell(report.run.finishedAt)) |")
        tail.append("| completed | \(report.run.completed ? "yes" : "no") |")
        if let shard = report.run.shard { tail.append("| shard | \(shard) |") }
        tail.append("")
        tail.append("</details>")
        if !failing.isEmpty || !unexpected.isEmpty {
            out.append("### Failures")
            out.append("")
            // The room the comment has left, less a margin for the "Not shown" line.
            let length = { (lines: [String]) in lines.reduce(0) { $0 + $1.count + 1 } }
            let room = min(failureBudget, commentLimit - length(out) - length(tail) - 4_000)
            var used = 0
            var omitted: [String] = []
            for requirement in failing {
                let block = failureBlock(requirement, report: report)
                let size = block.reduce(0) { $0 + $1.count + 1 }
                if used + size > room {
                    omitted.append(requirement.id)
                    continue
                }
                used += size
                out += block
            }
            if !omitted.isEmpty {
                out.append("Not shown, to fit a comment (see the HTML or JSON report): "
                           + omitted.map { "`\(code($0))`" }.joined(separator: ", "))
                out.append("")
            }
            for entry in unexpected {
                out.append("- ⚠️ expected failure `\(code(entry.id))` now passes (\(cell(entry.reason)))"
                           + (report.expectedFailures?.strict == true ? ": the gate fails until it is removed from the file" : ""))
            }
            if !unexpected.isEmpty { out.append("") }
        }

        out += tail
        return out.joined(separator: "\n") + "\n"
    }

    /// Case IDs a comment shows before it says how many more the reports list.
    static let casesShown = 12

    /// `` `a`, `b` and 30 more cases (see the report) ``.
    static func caseList(_ ids: [String]) -> String {
        ids.prefix(casesShown).map { "`\(code($0))`" }.joined(separator: ", ")
            + (ids.count > casesShown ? " (and \(ids.count - casesShown) more cases; see the HTML or JSON report)" : "")
    }

    /// The root causes that block the most requirements.
    private static func fixFirst(_ report: ComplianceReport) -> [String] {
        let first = RootCauseAnalysis.fixFirst(report, limit: TextSummaryWriter.fixFirstShown)
        guard !first.isEmpty else { return [] }
        var out = ["### Fix first", ""]
        for (index, cause) in first.enumerated() {
            let text = cause.kind == .inconclusive ? cell(cause.summary) + (cause.advice.map { ": **\(cell($0))**" } ?? "")
                : "`\(code(cause.check ?? "check"))`: " + cell(String(cause.title.prefix(300)))
            out.append("\(index + 1). \(text) (blocks \(cause.requirements.count) requirement\(cause.requirements.count == 1 ? "" : "s"), "
                       + "\(cause.mustRequirements) MUST; \(cause.cases.count) case\(cause.cases.count == 1 ? "" : "s"))")
        }
        let more = (report.rootCauses ?? []).count - first.count
        if more > 0 { out += ["", "\(more) more root cause\(more == 1 ? "" : "s") in the JSON report (`rootCauses`)."] }
        out.append("")
        return out
    }

    /// Every failed (or errored) MUST requirement, compact: its statement and its first finding. Always shown,
    /// before any long detail, whatever the budget.
    private static func failedMusts(_ report: ComplianceReport) -> [String] {
        let failed = report.requirements.filter { $0.level == "MUST" && ($0.status == .fail || $0.status == .error) }
        guard !failed.isEmpty else { return [] }
        var out = ["### Failed MUST requirements", ""]
        for requirement in failed {
            out.append("- \(statusIcon(requirement.status)) `\(code(requirement.id))` \(cell(requirement.title))")
            out.append("  > \(cell(FailureText.oneLine(requirement.statement)))")
            if let group = EvidenceGroup.groups(requirement, report: report).first {
                let evidence = group.first
                out.append("")
                out.append("  First finding: **\(cell(evidence.caseID))**, step \(evidence.step), `\(code(evidence.check))`: "
                           + cell(String(evidence.fullMessage.prefix(400)))
                           + (group.cases.count > 1 ? " (the same in \(group.cases.count) cases)" : ""))
            } else if let errored = report.cases.first(where: { testCase in
                testCase.status == .error && requirement.cases.contains { $0.id == testCase.id } }) {
                out.append("")
                out.append("  First error: **\(cell(errored.id))**: \(cell(String((errored.reason ?? "the adapter failed").prefix(400))))")
            }
        }
        out.append("")
        return out
    }

    /// The cases that could not run, one entry per reason, with what to do and the cases.
    private static func couldNotRun(_ report: ComplianceReport) -> [String] {
        var out: [String] = []
        for cause in report.rootCauses ?? [] where cause.kind == .inconclusive {
            let stopped = cause.cases.compactMap(report.testCase).filter { $0.status == .inconclusive || $0.status == .skipped }
            guard let first = stopped.first else { continue }
            if out.isEmpty {
                out += ["### Cases that could not run", "",
                        "A precondition did not hold, or a trigger started no refresh: these cases charge nothing and pass nothing; "
                        + "a requirement covered only by them is untested.", ""]
            }
            out.append("- \(statusIcon(.untested)) **\(cell(cause.summary))**" + (cause.advice.map { ": \(cell($0))" } ?? "")
                       + " (blocks \(cause.requirements.count) requirement\(cause.requirements.count == 1 ? "" : "s"))")
            out.append("  - cases: " + caseList(stopped.map(\.id)))
            out.append("  - first, `\(code(first.id))`: \(cell(first.reason ?? "a precondition did not hold"))")
            if let checks = first.wouldHaveChecked {
                out.append("  - it would have checked: " + checks.map(cell).joined(separator: "; "))
            }
        }
        if !out.isEmpty { out.append("") }
        return out
    }

    private static func realTimeWaits(_ report: ComplianceReport) -> [String] {
        let cases = RealTimeWaitText.caseLines(report)
        guard !cases.isEmpty else { return [] }
        return ["### ⏱️ \(RealTimeWaitText.heading)", "", cell(RealTimeWaitText.explanation), ""]
            + cases.map { "- " + ($0.caseID.map { "`\(code($0))`: " } ?? "") + cell($0.text) } + [""]
    }

    private static func failureBlock(_ requirement: RequirementReport, report: ComplianceReport) -> [String] {
        var block: [String] = []
        let label = "\(statusIcon(requirement.status)) <code>\(html(requirement.id))</code> (\(html(requirement.level)), "
            + "\(requirement.status.rawValue)): \(html(requirement.title))"
        block.append("<details><summary>\(label)</summary>")
        block.append("")
        block.append("> \(cell(requirement.statement))")
        block.append("")
        if !requirement.quotes.isEmpty {
            block.append("The design's words:")
            block.append("")
            for quote in requirement.quotes {
                block.append("> \(cell(FailureText.oneLine(quote.quote)))<br>— `\(code(quote.document))`")
                block.append("")
            }
        }
        if let expected = requirement.expectedFailure {
            block.append("Expected failure: \(cell(expected))")
            block.append("")
        }
        for group in EvidenceGroup.groups(requirement, report: report) {
            let evidence = group.first
            block.append("**\(cell(evidence.caseID))**, step \(evidence.step) (`\(code(evidence.stepKind))`), `\(code(evidence.check))`: "
                         + cell(evidence.fullMessage))
            block.append("")
            if group.cases.count > 1 {
                block.append("The same in \(group.cases.count) cases: " + caseList(group.cases))
                block.append("")
            }
            if !evidence.excerpt.isEmpty { block += fenced(evidence.excerpt.joined(separator: "\n")) }
            block += fenced(evidence.reproduce, language: "sh")
        }
        if requirement.status == .error {
            for testCase in report.cases where testCase.status == .error && requirement.cases.contains(where: { $0.id == testCase.id }) {
                block.append("**\(cell(testCase.id))** errored: \(cell(testCase.reason ?? "the adapter failed"))")
                block.append("")
                if let tail = testCase.stderrTail, !tail.isEmpty {
                    block += fenced(String(tail.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).joined(separator: "\n")))
                }
                block += fenced(testCase.reproduce, language: "sh")
            }
        }
        block.append("</details>")
        block.append("")
        return block
    }

    static func icon(_ verdict: ProfileVerdict.Verdict) -> String {
        switch verdict {
        case .certified: "✅"
        case .notCertified: "❌"
        case .notClaimed: "➖"
        case .incomplete: "🧩"
        }
    }

    static func statusIcon(_ status: RequirementReportStatus) -> String {
        switch status {
        case .pass: "✅"
        case .fail: "❌"
        case .warn: "⚠️"
        case .error: "💥"
        case .known: "🔕"
        case .skipped: "⏭️"
        case .untested: "❔"
        case .notTestable: "➖"
        }
    }

    /// Text for a table cell or a line (``MarkdownText/inline(_:)``).
    static func cell(_ text: String) -> String { MarkdownText.inline(text) }

    /// Text inside inline code (``MarkdownText/code(_:)``).
    static func code(_ text: String) -> String { MarkdownText.code(text) }

    /// Text inside the comment's HTML elements (``MarkdownText/html(_:)``).
    static func html(_ text: String) -> String { MarkdownText.html(text) }

    /// A fenced block that no line of `text` can close (``MarkdownText/fenced(_:language:)``).
    static func fenced(_ text: String, language: String = "text") -> [String] { MarkdownText.fenced(text, language: language) }
}
