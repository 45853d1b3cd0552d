@testable import ConformanceReports
import Foundation
import SpecModel
import Testing

/// A first adapter that never refreshes (`NeverRefreshingClient`): what its team reads first is what to fix
/// first, in every format.
@Suite("Root causes, fix first", .serialized)
struct RootCauseTests {
    static let neverRefreshes: ComplianceReport = {
        do { return try Runs.report(NeverRefreshingClient.launcher).report } catch { fatalError("the run failed: \(error)") }
    }()

    static let golden = Paths.fixtures.appendingPathComponent("never-refreshes-console.txt")

    @Test("golden: the console for a client that never refreshes opens with 'Fix first', the refresh first")
    func goldenConsole() throws {
        let text = TextSummaryWriter.render(Self.neverRefreshes, width: 100)
        let head = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(12).joined(separator: "\n") + "\n"
        let expected = try String(contentsOf: Self.golden, encoding: .utf8)
        #expect(head == expected, "update \(Self.golden.path) if the change is meant:\n\(head)")
        #expect(head.contains("Fix first:\n  1. the client never refreshed; implement refresh first (blocks "))
    }

    @Test("the refresh root cause gathers the cases that stopped for want of a refresh and the findings of one never sent")
    func refreshRootCause() throws {
        let report = Self.neverRefreshes
        let causes = try #require(report.rootCauses)
        let refresh = try #require(causes.first)
        #expect(refresh.id == "refresh" && refresh.kind == .inconclusive)
        let stopped = refresh.cases.compactMap(report.testCase).filter { $0.status == .inconclusive || $0.status == .skipped }
        #expect(refresh.summary == "the client never refreshed: \(stopped.count) cases could not run, "
                + "\(refresh.cases.count - stopped.count) failed for it")
        #expect(refresh.requirements.contains("REFRESH-SINGLE-FLIGHT"))
        for id in refresh.cases {
            let testCase = try #require(report.testCase(id))
            #expect(testCase.unmet?.endpoint == "refresh" || testCase.findings.contains { $0.unmet?.endpoint == "refresh" }, "\(id)")
        }
        // Fix-first order: more requirements blocked first, then more MUST, then more cases; ties by ID.
        for (a, b) in zip(causes, causes.dropFirst()) {
            #expect((-a.requirements.count, -a.mustRequirements, -a.cases.count, a.id)
                    < (-b.requirements.count, -b.mustRequirements, -b.cases.count, b.id))
        }
        #expect(RootCauseAnalysis.rootCauses(report) == causes, "derived from the report alone, deterministically")
    }

    @Test("identical findings across cases collapse into one root cause listing every case")
    func identicalFindingsCollapse() throws {
        let report = Self.neverRefreshes
        let message = "transition 'sign-in-started' (signedOut to signingIn, reported 'sign-in-started') keeps the session generation"
        let showing = report.cases.filter { $0.findings.contains { $0.message.hasPrefix(message) } }.map(\.id)
        #expect(showing.count > 20)
        let causes = (report.rootCauses ?? []).filter { $0.title.hasPrefix(message) }
        #expect(causes.count == 1)
        #expect(causes.first?.cases == showing)
        #expect(causes.first?.kind == .failure && causes.first?.check == "oracle:transitions-follow-state-machine")
        let text = TextSummaryWriter.render(report)
        #expect(text.components(separatedBy: "  - case ").filter { $0.contains("'sign-in-started' (signedOut") }.count == 1)
        let state = try #require(report.requirement("SESSION-STATE-MACHINE"))
        let inEvidence = try #require(EvidenceGroup.groups(state, report: report).first { $0.first.message.hasPrefix(message) })
        #expect(inEvidence.cases.count > 20)
        #expect(text.contains("    the same in \(inEvidence.cases.count) cases: "))
    }

    @Test("every console line fits the width but the totals; case lists say how many cases they leave to the report")
    func widthRespected() throws {
        for width in [60, 80, 100] {
            let lines = TextSummaryWriter.render(Self.neverRefreshes, width: width).split(separator: "\n").dropLast()
            let long = lines.filter { $0.count > width }
            #expect(long.isEmpty, "width \(width): \(long)")
            #expect(lines.contains { $0.hasSuffix(" more cases; see the report)") || $0.hasSuffix(" (see the report)") })
        }
        #expect(ConsoleWidth.fit("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu", 40)
                == "alpha beta gamma delta epsilon zeta…")
        #expect(ConsoleWidth.current(environment: ["COLUMNS": "132"]) == 132)
    }

    @Test("the totals say what the 'more' counts")
    func moreReasonsCounted() {
        let last = TextSummaryWriter.render(Self.neverRefreshes).split(separator: "\n").last.map(String.init) ?? ""
        let failed = Self.neverRefreshes.requirements.filter { $0.level == "MUST" && $0.status == .fail }.count
        let untested = Self.neverRefreshes.requirements.filter { $0.level == "MUST" && $0.status == .untested }.count
        #expect(last.hasSuffix("(and \(failed + untested - 1) more: \(Plural.count(failed - 1, "MUST requirement")) failed, "
                               + "\(Plural.count(untested, "MUST requirement")) untested)"), "\(last)")
    }

    @Test("Markdown: REFRESH-SINGLE-FLIGHT's statement and first finding come before any detail, within the comment limit")
    func markdownHeadline() throws {
        let report = Self.neverRefreshes
        let markdown = MarkdownReportWriter.render(report)
        #expect(markdown.count < 65_536)
        let requirement = try #require(report.requirement("REFRESH-SINGLE-FLIGHT"))
        #expect(requirement.status == .fail)
        let evidence = try #require(requirement.evidence.first)
        let failures = try #require(markdown.range(of: "### Failures"))
        let statement = try #require(markdown.range(of: "> " + MarkdownReportWriter.cell(requirement.statement)))
        let finding = try #require(markdown.range(of: "First finding: **\(MarkdownReportWriter.cell(evidence.caseID))**, step \(evidence.step), "
                                                    + "`\(evidence.check)`: " + MarkdownReportWriter.cell(evidence.fullMessage)))
        #expect(statement.lowerBound < failures.lowerBound && finding.lowerBound < failures.lowerBound)
        #expect(markdown.range(of: "### Fix first")!.lowerBound < statement.lowerBound)
        for failed in report.requirements where failed.level == "MUST" && failed.status == .fail {
            #expect(markdown.contains("`\(failed.id)` \(MarkdownReportWriter.cell(failed.title))"), "\(failed.id)")
        }
        let notShown = markdown.split(separator: "\n").first { $0.hasPrefix("Not shown") } ?? ""
        #expect(!notShown.contains("REFRESH-SINGLE-FLIGHT"))
        #expect(!markdown.contains("```text\n\n```") && !markdown.contains("```text\n```"), "an empty text box")
    }

    @Test("JSON: rootCauses and each case's unmet precondition validate against the schema and read back", .needs(.jsonschema))
    func json() throws {
        let report = Self.neverRefreshes
        let json = JSONReportWriter.value(report)
        #expect(json["rootCauses"]?.array?.first?["id"]?.string == "refresh")
        #expect(json["rootCauses"]?.array?.first?["advice"]?.string == "implement refresh first")
        let stopped = try #require(json["cases"]?.array?.first { $0["status"]?.string == "inconclusive" })
        #expect(stopped["unmet"]?["kind"]?.string != nil)
        let verdicts = try SchemaValidator.validate(["never-refreshes": report])
        #expect(verdicts["never-refreshes"]?.hasPrefix("OK ") == true, "\(verdicts)")
        #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
    }

    @Test("JUnit, TAP and HTML name the root causes")
    func otherFormats() throws {
        let report = Self.neverRefreshes
        let junit = JUnitReportWriter.render(report)
        #expect(junit.contains("<property name=\"rootCause.1\" value=\"the client never refreshed: "))
        #expect(junit.contains("root cause: the client never refreshed: "))
        let tap = TAPReportWriter.render(report)
        #expect(tap.contains("# fix first:\n# 1. the client never refreshed: "))
        #expect(tap.contains("  rootCause: \"the client never refreshed: "))
        let html = HTMLReportWriter.render(report)
        #expect(html.contains("<section id=\"root-causes\">") && html.contains("id=\"root-cause-refresh\""))
        #expect(html.contains("root cause: <a href=\"#root-cause-"))
    }
}
