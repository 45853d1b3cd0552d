@testable import ConformanceReports
import Foundation
import Testing

@Suite("The Markdown report")
struct MarkdownReportTests {
    @Test("the verdict and the summary table come first, the failures after, each folded in <details>")
    func shapedForAPullRequestComment() throws {
        let report = Runs.shared.defective
        let markdown = MarkdownReportWriter.render(report)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("## ❌ session-conformance: SessionKit 0.1.0 not certified"))
        let table = try #require(lines.firstIndex { $0.hasPrefix("| profile | verdict |") })
        let failures = try #require(lines.firstIndex { $0 == "### Failures" })
        #expect(table < failures)
        #expect(lines.firstIndex { $0.hasPrefix("| requirements |") }! < failures)
        let fold = try #require(lines.firstIndex { $0.hasPrefix("<details><summary>❌ <code>LOG-NO-TOKEN-VALUES</code>") })
        #expect(fold > failures)
        #expect(markdown.contains("```sh\nsession-conformance run --case "))
        #expect(markdown.count < 65_536, "GitHub refuses comments over 65,536 characters")
    }

    @Test("a passing run says certified and lists no failures")
    func passing() {
        let markdown = MarkdownReportWriter.render(Runs.shared.reference)
        #expect(markdown.hasPrefix("## ✅ session-conformance: SessionKit 0.1.0 certified (core, core+background-refresh, core+offline-browsing)"))
        #expect(!markdown.contains("### Failures"))
    }

    @Test("table cells cannot break the table, and fences outlast backticks in the text")
    func escaping() {
        #expect(MarkdownReportWriter.cell("a|b\nc <x> `y`") == "a\\|b c &lt;x&gt; \\`y\\`")
        #expect(MarkdownReportWriter.fenced("has ``` inside")[0] == "````text")
    }

    @Test("past the size budget, further failures are named instead of shown")
    func sizeBudget() throws {
        var report = Runs.shared.defective
        let index = try #require(report.cases.firstIndex { $0.status == .fail })
        // 400 different findings (numbers aside: findings that differ only in numbers are one).
        report.cases[index].findings = (0..<400).map { number in
            let word = String(UnicodeScalar(UInt8(97 + number % 26))) + String(UnicodeScalar(UInt8(97 + number / 26)))
            return FindingReport(requirements: ["LOG-NO-TOKEN-VALUES", "REFRESH-RETRY-ONCE", "STORAGE-ATOMIC-PAIR", "REFRESH-SINGLE-FLIGHT"],
                          check: "oracle:test", message: String(repeating: "long message \(word) ", count: 12),
                          step: 1, stepKind: "launch", events: [1, 2, 3])
        }
        report.derive()
        let markdown = MarkdownReportWriter.render(report)
        #expect(markdown.count < 65_536)
        #expect(markdown.contains("Not shown, to fit a comment"))
    }
}

@Suite("The TAP report")
struct TAPReportTests {
    /// Parses TAP with Perl's TAP::Parser (part of Perl's core) and returns its view of the stream.
    static func parse(_ tap: String) throws -> [String: String] {
        let perl = try #require(Program.available("perl"), "perl (with TAP::Parser, part of its core) is needed for the TAP test")
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.tap")
        try tap.write(to: file)
        let script = """
            use TAP::Parser; my $p = TAP::Parser->new({ source => $ARGV[0] }); while (my $r = $p->next) {}
            printf "version=%s\\nplanned=%s\\nrun=%s\\npassed=%s\\nfailed=%s\\ntodo=%s\\ntodo_passed=%s\\nskipped=%s\\nparse_errors=%s\\n",
              $p->version, $p->tests_planned, $p->tests_run, scalar($p->passed), scalar($p->failed), scalar($p->todo),
              scalar($p->todo_passed), scalar($p->skipped), join(' | ', $p->parse_errors);
            """
        let run = try Program.run(perl, ["-e", script, file.path])
        try #require(run.status == 0, "perl failed: \(run.stderr)")
        return Dictionary(run.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }, uniquingKeysWith: { a, _ in a })
    }

    @Test("a real TAP parser reads version 13, the plan, and the failures the report has", .needs(.perl))
    func parsedByTAPParser() throws {
        let report = Runs.shared.defective
        let parsed = try Self.parse(TAPReportWriter.render(report))
        #expect(parsed["parse_errors"] == "", "\(parsed)")
        #expect(parsed["version"] == "13")
        #expect(parsed["planned"] == String(report.requirements.count))
        #expect(parsed["run"] == String(report.requirements.count))
        let failing = report.requirements.filter { $0.status == .fail || $0.status == .error }.count
        #expect(parsed["failed"] == String(failing))
        #expect(Int(parsed["skipped"] ?? "") == report.requirements.filter { [.skipped, .notTestable, .untested].contains($0.status) }.count)
    }

    @Test("expected failures are TODO: a known failure does not fail the stream, a now-passing one shows as a TODO pass", .needs(.perl))
    func todo() throws {
        let expected = try Runs.expectedFailures("""
            - id: LOG-NO-TOKEN-VALUES
              reason: APP-1
            - id: CACHE-PARTITION-BY-ACCOUNT
              reason: fixed already
            """)
        let report = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        let tap = TAPReportWriter.render(report)
        #expect(tap.contains("not ok") && tap.contains("LOG-NO-TOKEN-VALUES (MUST) Never a token value in logs or events # TODO expected failure: APP-1"))
        let parsed = try Self.parse(tap)
        #expect(parsed["parse_errors"] == "")
        #expect(parsed["todo_passed"] == "1", "\(parsed)")
    }
}
