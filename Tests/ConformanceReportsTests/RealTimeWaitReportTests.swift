import ConformanceReports
import Foundation
import Testing

/// A case in which the adapter let real time pass in silence: every format that shows diagnostics says where and
/// how to route the wait through the virtual clock, and no verdict changes.
@Suite("Real-time waits in reports", .serialized)
struct RealTimeWaitReportTests {
    static func waited() throws -> (report: ComplianceReport, caseID: String) {
        var report = Runs.shared.reference
        let index = try #require(report.cases.firstIndex { $0.status == .pass })
        report.cases[index].realTimeWaits = [RealTimeWaitReport(step: 4, afterEvent: 29, seconds: 1.5),
                                             RealTimeWaitReport(step: 5, afterEvent: 40, seconds: 2.1)]
        report.derive()
        return (report, report.cases[index].id)
    }

    @Test("the note decides nothing: requirements, certification and gate are those of the report without it")
    func decidesNothing() throws {
        let (report, _) = try Self.waited()
        let plain = Runs.shared.reference
        #expect(report.requirements.map(\.status) == plain.requirements.map(\.status))
        #expect(report.certification == plain.certification && report.gate == plain.gate)
    }

    @Test("console, Markdown and HTML name the case, the step, the event and the seconds, and say to use the sleep effect")
    func textFormats() throws {
        let (report, caseID) = try Self.waited()
        let line = "\(caseID): step 4: the adapter sent nothing for 1.5 s of real time after #29 (and 1 more in this case)"
        let text = TextSummaryWriter.render(report)
        #expect(text.contains("REAL TIME case " + line), "\(text)")
        #expect(text.contains("route the wait through the `sleep` effect"))
        let markdown = MarkdownReportWriter.render(report)
        #expect(markdown.contains("### ⏱️ Real time passed with the adapter silent"))
        #expect(markdown.contains("- `\(caseID)`: step 4: the adapter sent nothing for 1.5 s"))
        let html = HTMLReportWriter.render(report)
        #expect(html.contains("<section id=\"real-time\">"))
        #expect(html.contains("<code>\(caseID)</code>: step 4: the adapter sent nothing for 1.5 s"))
        #expect(!TextSummaryWriter.render(Runs.shared.reference).contains("REAL TIME"))
    }

    @Test("JSON: the case's realTimeWaits, read back equal and valid against the schema; absent when there are none", .needs(.jsonschema))
    func json() throws {
        let (report, caseID) = try Self.waited()
        let json = JSONReportWriter.value(report)
        let testCase = try #require(json["cases"]?.array?.first { $0["id"]?.string == caseID })
        #expect(testCase["realTimeWaits"]?.array?.first?["afterEvent"]?.int == 29)
        #expect(json["cases"]?.array?.first { $0["id"]?.string != caseID }?["realTimeWaits"] == nil)
        #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
        let verdicts = try SchemaValidator.validate(["real-time": report])
        #expect(verdicts["real-time"]?.hasPrefix("OK ") == true, "\(verdicts)")
    }
}
