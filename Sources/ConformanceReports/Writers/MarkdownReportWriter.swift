/// GitHub-flavoured Markdown shaped for a pull-request comment: the verdict and a summary table first, then
/// the failures, each folded in `<details>`, then the whole requirement table, folded. Kept under GitHub's
/// 65,536-character comment limit: past a budget, further failures are listed by name only.
public enum MarkdownReportWriter {
    /// Room left under GitHub's limit for the header and the folded tables.
    static let failureBudget = 45_000

    public static func render(_ report: ComplianceReport) -> String {
        var out: [String] = []
        let client = report.adapter.implementation.map { "\($0.name) \($0.version)" } ?? report.adapter.description
        let certified = report.certification.filter { $0.verdict == .certified }.map(\.profile)
        let headline: String
        if report.run.startupFailure != nil {
            headline = "❌ session-conformance: \(cell(client)) could not be started"
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
            let blocking = verdict.blocking.prefix(4).map { "`\($0.id)`" }.joined(separator: ", ")
                + (verdict.blocking.count > 4 ? ", ..." : "")
            out.append("| \(verdict.profile) | \(icon(verdict.verdict)) \(TextSummaryWriter.verdictWord(verdict.verdict)) | "
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
            out.append(cell(failure.message))
            out.append("")
            if !failure.stderrTail.isEmpty { out += fenced(failure.stderrTail) }
        }

        let failing = report.requirements.filter { [.fail, .error, .warn, .known].contains($0.status) }
        let unexpected = report.expectedFailures?.unexpectedPasses ?? []
        if !failing.isEmpty || !unexpected.isEmpty {
            out.append("### Failures")
            out.append("")
            var used = 0
            var omitted: [String] = []
            for requirement in failing {
                let block = failureBlock(requirement, report: report)
                let size = block.reduce(0) { $0 + $1.count + 1 }
                if used + size > failureBudget {
                    omitted.append(requirement.id)
                    continue
                }
                used += size
                out += block
            }
            if !omitted.isEmpty {
                out.append("Not shown, to fit a comment (see the HTML or JSON report): "
                           + omitted.map { "`\($0)`" }.joined(separator: ", "))
                out.append("")
            }
            for entry in unexpected {
                out.append("- ⚠️ expected failure `\(entry.id)` now passes (\(cell(entry.reason)))"
                           + (report.expectedFailures?.strict == true ? ": the gate fails until it is removed from the file" : ""))
            }
            if !unexpected.isEmpty { out.append("") }
        }

        let inconclusive = report.cases.filter { $0.status == .inconclusive }
        if !inconclusive.isEmpty {
            out.append("### Inconclusive cases")
            out.append("")
            out.append("A precondition did not hold: these cases charge nothing and pass nothing; a requirement "
                       + "covered only by them is untested.")
            out.append("")
            for testCase in inconclusive {
                out.append("- \(statusIcon(.untested)) `\(code(testCase.id))`: \(cell(testCase.reason ?? "a precondition did not hold"))")
                if let checks = testCase.wouldHaveChecked {
                    out.append("  - would have checked: " + checks.map(cell).joined(separator: "; "))
                }
            }
            out.append("")
        }

        out += realTimeWaits(report)

        out.append("<details><summary>All requirements (\(report.requirements.count))</summary>")
        out.append("")
        out.append("| status | level | requirement | cases |")
        out.append("| --- | --- | --- | --- |")
        for requirement in report.requirements {
            let cases = requirement.cases.map { "\($0.id) (\($0.status.rawValue))" }.joined(separator: ", ")
            let detail = requirement.expectedFailure.map { "expected: \($0)" } ?? requirement.reason ?? cases
            out.append("| \(statusIcon(requirement.status)) \(requirement.status.rawValue) | \(requirement.level) | "
                       + "`\(requirement.id)` \(cell(requirement.title)) | \(cell(detail)) |")
        }
        out.append("")
        out.append("</details>")
        out.append("")
        out.append("<details><summary>Run</summary>")
        out.append("")
        out.append("| | |")
        out.append("| --- | --- |")
        out.append("| suite | session-conformance \(cell(report.suite.version)) |")
        out.append("| spec | version \(cell(report.spec.versionText)); `\(report.spec.digest)` (\(report.spec.files.count) files) |")
        out.append("| client | \(cell(client)); capabilities: \(cell(report.adapter.capabilities.joined(separator: ", ")))"
                   + " |")
        out.append("| adapter | `\(code(report.adapter.description))` |")
        out.append("| seed | \(report.run.seed) |")
        if let world = report.run.world { out.append("| world | \(cell(world)) |") }
        out.append("| started, finished | \(report.run.startedAt), \(report.run.finishedAt) |")
        out.append("| completed | \(report.run.completed ? "yes" : "no") |")
        if let shard = report.run.shard { out.append("| shard | \(shard) |") }
        out.append("")
        out.append("</details>")
        return out.joined(separator: "\n") + "\n"
    }

    private static func realTimeWaits(_ report: ComplianceReport) -> [String] {
        let cases = RealTimeWaitText.caseLines(report)
        guard !cases.isEmpty else { return [] }
        return ["### ⏱️ \(RealTimeWaitText.heading)", "", cell(RealTimeWaitText.explanation), ""]
            + cases.map { "- " + ($0.caseID.map { "`\(code($0))`: " } ?? "") + cell($0.text) } + [""]
    }

    private static func failureBlock(_ requirement: RequirementReport, report: ComplianceReport) -> [String] {
        var block: [String] = []
        let label = "\(statusIcon(requirement.status)) <code>\(html(requirement.id))</code> (\(requirement.level), "
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
        for evidence in requirement.evidence {
            block.append("**\(cell(evidence.caseID))**, step \(evidence.step) (`\(code(evidence.stepKind))`), `\(code(evidence.check))`: "
                         + cell(evidence.fullMessage))
            block.append("")
            block += fenced(evidence.excerpt.joined(separator: "\n"))
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

    /// Text for a table cell or a line: one line, no table breaks, no HTML.
    static func cell(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "|": output += "\\|"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "&": output += "&amp;"
            case "\n", "\r", "\t": output += " "
            case "*", "_", "`", "[", "]", "\\": output += "\\" + String(scalar)
            default: if scalar.value >= 0x20 && scalar.value != 0x7F { output.unicodeScalars.append(scalar) }
            }
        }
        return output
    }

    /// Text inside inline code, which is literal: only backticks, line breaks and table pipes need care.
    static func code(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "`": output += "'"
            case "|": output += "\\|"
            case "\n", "\r", "\t": output += " "
            default: if scalar.value >= 0x20 && scalar.value != 0x7F { output.unicodeScalars.append(scalar) }
            }
        }
        return output
    }

    static func html(_ text: String) -> String {
        HTMLReportWriter.escape(text)
    }

    /// A fenced block whose fence is longer than any run of backticks inside it.
    static func fenced(_ text: String, language: String = "text") -> [String] {
        var longest = 0
        var run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" || $0 == "\t" }))
        return [fence + language, clean, fence, ""]
    }
}
