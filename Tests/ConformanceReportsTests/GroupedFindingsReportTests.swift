import ConformanceReports
import Foundation
import Testing

/// Identical findings are one finding with a count in every format; the console shows a few per requirement.
@Suite("Grouped and capped findings", .serialized)
struct GroupedFindingsReportTests {
    /// The reference adapter executable SwiftPM built beside the test bundle.
    static var referenceAdapter: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("session-conformance-reference-adapter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    @Test("the console shows at most 3 findings per requirement, then how many more the report has")
    func consoleCaps() throws {
        var report = Runs.shared.defective
        let index = try #require(report.cases.firstIndex { $0.status == .fail })
        let id = try #require(report.cases[index].findings.first?.requirements.first)
        report.cases[index].findings += (1...5).map { number in
            FindingReport(requirements: [id], check: "oracle:check-\(number)", message: "violation \(number)", step: 1,
                          stepKind: "launch", events: [1])
        }
        report.derive()
        let requirement = try #require(report.requirement(id))
        #expect(requirement.evidence.count >= 6)
        let text = TextSummaryWriter.render(report)
        let section = try #require(text.components(separatedBy: "\n\n").first { $0.hasPrefix("FAIL MUST \(id): ") || $0.hasPrefix("WARN ") && $0.contains(" \(id): ") })
        let shown = section.split(separator: "\n").filter { $0.hasPrefix("  - case ") }
        #expect(shown.count == 3, "\(section)")
        // Findings are counted once however many cases show them (`EvidenceGroup`).
        let groups = EvidenceGroup.groups(requirement, report: report).count
        #expect(section.hasSuffix("  ... \(groups - 3) more findings in the report (--report html, or --verbose)"), "\(section)")
        let verbose = TextSummaryWriter.render(report, verbose: true)
        #expect(verbose.components(separatedBy: "\n  - case ").count - 1 >= text.components(separatedBy: "\n  - case ").count - 1 + 3)
    }

    @Test("a grouped finding keeps its count in JSON, and every format says how many more like it", .needs(.jsonschema))
    func groupedInEveryFormat() throws {
        var report = Runs.shared.defective
        let index = try #require(report.cases.firstIndex { $0.status == .fail })
        report.cases[index].findings[0].occurrences = 999
        report.derive()
        let finding = report.cases[index].findings[0]
        let evidence = try #require(report.requirement(finding.requirements[0])?.evidence.first { $0.caseID == report.cases[index].id })
        #expect(evidence.occurrences == 999)
        let words = "\(finding.message) (and 998 more like it)"
        #expect(JSONReportWriter.value(report)["cases"]?.array?[index]["findings"]?.array?.first?["occurrences"]?.int == 999)
        #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
        let verdicts = try SchemaValidator.validate(["grouped": report])
        #expect(verdicts["grouped"]?.hasPrefix("OK ") == true, "\(verdicts)")
        #expect(TextSummaryWriter.render(report).contains(words))
        #expect(HTMLReportWriter.render(report).contains(HTMLReportWriter.escape(words)))
        #expect(TAPReportWriter.render(report).contains("occurrences: 999"))
        #expect(JUnitReportWriter.render(report).contains("more like it)"))
        #expect(MarkdownReportWriter.render(report).contains("998 more like it)"))
    }

    @Test("1,000 concurrent 401s refreshed one by one: one grouped finding, a short console and small reports")
    func thousandConcurrent() throws {
        let adapter = try #require(Self.referenceAdapter, "the reference adapter executable was not built")
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let (code, console) = cli("run", "--spec-root", Paths.specs, "--adapter", "'\(adapter)' --variant refresh-per-request",
                                  "--filter", "thousand-*", "--report", "json=\(path("r.json"))",
                                  "--report", "html=\(path("r.html"))", "--report", "junit=\(path("r.xml"))")
        #expect(code == .conformanceFailure, "\(console.stdout)\(console.stderr)")
        let report = try JSONReportWriter.read(path: path("r.json"))
        let findings = report.cases.flatMap(\.findings).filter { $0.check == "oracle:single-refresh-in-flight" }
        #expect(findings.count == 1)
        #expect((findings.first?.occurrences ?? 0) >= 999)
        #expect((findings.first?.events.count ?? 99) <= 3)
        let lines = console.stdout.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 120, "\(lines) console lines")
        let html = try FileManager.default.attributesOfItem(atPath: path("r.html"))[.size] as? Int ?? 0
        let junit = try FileManager.default.attributesOfItem(atPath: path("r.xml"))[.size] as? Int ?? 0
        #expect(html < 400_000, "HTML report of \(html) bytes")
        #expect(junit < 60_000, "JUnit report of \(junit) bytes")
    }
}
