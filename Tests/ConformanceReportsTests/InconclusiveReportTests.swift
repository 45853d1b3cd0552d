import ConformanceReports
import Foundation
import Testing

/// Reports of a run where one case was inconclusive: its precondition did not hold, so it charges nothing
/// and passes nothing, and a requirement covered only by it is untested, in every format.
@Suite("Inconclusive cases in reports", .serialized)
struct InconclusiveReportTests {
    static let reason = "no refresh was started: the event the case is about never happened"

    /// The reference's report with one case made inconclusive: the first case that is the only one covering a
    /// MUST requirement. Returns the report, the case and that requirement.
    static func inconclusive(partial: Bool = false) throws -> (report: ComplianceReport, caseID: String, requirement: String) {
        var report = Runs.shared.reference
        let sole = try #require(report.requirements.first { requirement in
            requirement.level == "MUST" && requirement.cases.count == 1
        }, "the reference report has no MUST requirement covered by a single case")
        let caseID = sole.cases[0].id
        let index = try #require(report.cases.firstIndex { $0.id == caseID })
        report.cases[index].status = .inconclusive
        report.cases[index].reason = reason
        report.cases[index].findings = []
        if partial { report.run.filters = ["*"] }
        report.derive()
        return (report, caseID, sole.id)
    }

    @Test("a requirement covered only by an inconclusive case is untested with the reason; its profile is not certified and the gate fails")
    func derivation() throws {
        let (report, caseID, id) = try Self.inconclusive()
        let requirement = try #require(report.requirement(id))
        #expect(requirement.status == .untested)
        #expect(requirement.reason == "every covering case was inconclusive: \(caseID): \(Self.reason)")
        #expect(requirement.cases.map(\.status) == [.inconclusive])
        let core = try #require(report.certification.first)
        #expect(core.verdict == .notCertified)
        #expect(core.blocking.contains { $0.id == id && $0.why == "untested: \(requirement.reason!)" }, "\(core.blocking)")
        #expect(!report.gate.passed)
        #expect(report.gate.reasons.contains("MUST requirement \(id) is untested: \(requirement.reason!)"))
        #expect(report.summary.cases["inconclusive"] == 1)
        #expect(!report.requirements.contains { $0.status == .pass && $0.cases.allSatisfy { $0.status == .inconclusive } })
    }

    @Test("the report derivation and the runner's verdict agree: a conclusive case beside an inconclusive one passes")
    func conclusiveBesideInconclusive() throws {
        var report = Runs.shared.reference
        let shared = try #require(report.requirements.first { $0.level == "MUST" && $0.cases.count >= 2 })
        let index = try #require(report.cases.firstIndex { $0.id == shared.cases[0].id })
        report.cases[index].status = .inconclusive
        report.cases[index].reason = Self.reason
        report.derive()
        #expect(report.requirement(shared.id)?.status == .pass)
    }

    @Test("JSON: the case's status and reason, the summary count, and the schema accepts it", .needs(.jsonschema))
    func json() throws {
        let (report, caseID, _) = try Self.inconclusive()
        let json = JSONReportWriter.value(report)
        let testCase = try #require(json["cases"]?.array?.first { $0["id"]?.string == caseID })
        #expect(testCase["status"]?.string == "inconclusive")
        #expect(testCase["reason"]?.string == Self.reason)
        #expect(json["summary"]?["cases"]?["inconclusive"]?.int == 1)
        let verdicts = try SchemaValidator.validate(["inconclusive": report])
        #expect(verdicts["inconclusive"]?.hasPrefix("OK ") == true, "\(verdicts)")
        #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
    }

    @Test("JUnit: the case is skipped with 'inconclusive: reason'; the untested MUST fails with why; valid against the XSD", .needs(.xmllint))
    func junit() throws {
        let (report, caseID, id) = try Self.inconclusive()
        let xml = JUnitReportWriter.render(report)
        #expect(xml.contains("<skipped message=\"inconclusive: \(Self.reason)\"/>"))
        #expect(xml.contains("name=\"\(caseID): "))
        #expect(xml.contains("<failure message=\"every covering case was inconclusive: \(caseID): \(Self.reason)\" type=\"untested\">"),
                "the untested MUST \(id) is not a failure with its reason")
        let validation = try JUnitSchema.validate(xml)
        #expect(validation.valid, "\(validation.output)")
    }

    @Test("TAP: in a partial run the requirement is '# SKIP inconclusive: case: reason'; the stream parses", .needs(.perl))
    func tap() throws {
        let (report, caseID, id) = try Self.inconclusive(partial: true)
        let tap = TAPReportWriter.render(report)
        let line = try #require(tap.split(separator: "\n").first { $0.contains(" - \(id) (MUST)") })
        #expect(line.hasSuffix("# SKIP inconclusive: \(caseID): \(Self.reason)"), "\(line)")
        let parsed = try TAPReportTests.parse(tap)
        #expect(parsed["parse_errors"] == "" && parsed["failed"] == "0", "\(parsed)")
        let whole = TAPReportWriter.render(try Self.inconclusive().report)
        #expect(whole.contains("not ok") && whole.contains("reason: \"every covering case was inconclusive: \(caseID): "))
    }

    @Test("Markdown: a section lists the inconclusive case under its reason, and the case table counts it")
    func markdown() throws {
        let (report, caseID, _) = try Self.inconclusive()
        let markdown = MarkdownReportWriter.render(report)
        #expect(markdown.contains("### Cases that could not run"))
        let cause = try #require(RootCauseAnalysis.rootCause(ofCase: caseID, in: report))
        #expect(markdown.contains("- ❔ **no refresh was started: the event the case is about never happened: 1 case could not run** "
                                  + "(blocks \(cause.requirements.count) requirements)\n  - cases: `\(caseID)`\n"))
        #expect(markdown.contains("  - first, `\(caseID)`: no refresh was started: the event the case is about never happened"))
        #expect(markdown.contains("| cases | pass | fail | skipped | error | known | inconclusive | time |"))
    }

    @Test("HTML: the case has an inconclusive badge in its own colour; the links resolve")
    func html() throws {
        let (report, caseID, _) = try Self.inconclusive()
        let html = HTMLReportWriter.render(report)
        #expect(html.contains("color:#1b7c83;background:#d8f3f0;border-color:#1b7c83\">inconclusive</span>"))
        #expect(html.contains("class=\"case-link s-inconclusive\""))
        #expect(html.contains("id=\"case-\(caseID)\""))
        let regex = try NSRegularExpression(pattern: ##"href="#([^"]+)""##)
        let ids = html.components(separatedBy: " id=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            let target = String(html[Range(match.range(at: 1), in: html)!])
            #expect(ids.contains(target), "no element has id \(target)")
        }
    }

    @Test("the console lists the case under COULD NOT RUN with its reason, the requirement as UNTESTED, and the totals count it")
    func console() throws {
        let (report, caseID, id) = try Self.inconclusive()
        let text = TextSummaryWriter.render(report)
        let cause = try #require(RootCauseAnalysis.rootCause(ofCase: caseID, in: report))
        #expect(cause.requirements.contains(id) && cause.requirements.count > 1)
        #expect(text.contains("COULD NOT RUN: \(Self.reason) (1 case; blocks \(cause.requirements.count) requirements, "
                              + "\(cause.mustRequirements) MUST)\n  1 case: \(caseID)\n"
                              + "  first, \(caseID) (inconclusive): \(Self.reason)\n"), "\(text)")
        #expect(text.contains("UNTESTED MUST   \(id) (every covering case was inconclusive: \(caseID): "))
        #expect(text.contains("1 inconclusive; seed 1: FAILED: "))
    }

    @Test("console, Markdown and HTML say what an inconclusive case would have checked")
    func wouldHaveChecked() throws {
        var (report, caseID, _) = try Self.inconclusive()
        let index = try #require(report.cases.firstIndex { $0.id == caseID })
        let checks = ["step 9 (Specs/cases/refresh.yaml:40): REFRESH-SINGLE-FLIGHT: requests, results", "step 11 (Specs/cases/refresh.yaml:44): SIGNIN-PROMPT-ONCE: prompts"]
        report.cases[index].wouldHaveChecked = checks
        #expect(TextSummaryWriter.render(report).contains(
            "  first, \(caseID) (inconclusive): \(Self.reason)\n  it would have checked: " + checks.joined(separator: "; ") + "\n"))
        #expect(MarkdownReportWriter.render(report).contains("  - it would have checked: " + checks.joined(separator: "; ")))
        #expect(HTMLReportWriter.render(report).contains("<div class=\"small\">would have checked: " + checks.joined(separator: "; ") + "</div>"))
        #expect(try JSONReportWriter.read(JSONReportWriter.render(report)).cases[index].wouldHaveChecked == checks)
    }

    @Test("diff: a requirement that passed and is now left untested by an inconclusive case is a regression")
    func diff() throws {
        let (report, _, id) = try Self.inconclusive()
        let diff = ReportDiff.compare(old: Runs.shared.reference, new: report)
        #expect(diff.regressions.map(\.id).contains(id))
        #expect(diff.rendered(old: "a", new: "b").contains("  \(id) (MUST): pass -> untested (inconclusive)"))
        #expect(ReportDiff.compare(old: report, new: Runs.shared.reference).fixes.map(\.id).contains(id))
    }

    @Test("merge: shards holding an inconclusive case merge into the report of the unsharded run")
    func merge() throws {
        let (whole, caseID, _) = try Self.inconclusive()
        var shards = try MergeTests.referenceShards(count: 2)
        for index in shards.indices {
            if let position = shards[index].cases.firstIndex(where: { $0.id == caseID }) {
                shards[index].cases[position].status = .inconclusive
                shards[index].cases[position].reason = Self.reason
                shards[index].derive()
            }
        }
        let merged = try MergeTests.merged(shards)
        #expect(merged.removingWallClock() == whole.removingWallClock())
    }
}
