import ConformanceReports
import ConformanceRunner
import Foundation
import JSONCore
import SimulatedWorld
import Testing

@Suite("Reports name the world profile")
struct WorldProfileReportTests {
    static let rfc6749Report: ComplianceReport = {
        do {
            let options = RunOptions(seed: 1, filters: ["one-401-refreshes-and-retries-once"], world: .rfc6749)
            return try Runs.report(Runs.referenceLauncher, options: options).report
        } catch {
            fatalError("the rfc6749 run failed: \(error)")
        }
    }()

    @Test("the JSON report's run.world is the profile's name, and survives a round trip")
    func jsonReport() throws {
        let report = Self.rfc6749Report
        #expect(report.run.world == "rfc6749")
        #expect(report.cases.map(\.status) == [.pass])
        let json = JSONReportWriter.render(report)
        #expect(JSONReportWriter.value(report)["run"]?["world"]?.string == "rfc6749")
        #expect(try JSONReportWriter.read(json).run.world == "rfc6749")
        #expect(Runs.shared.reference.run.world == "json-v1", "an in-process run without --world is under json-v1")
    }

    @Test("the console header, Markdown, HTML, JUnit properties and TAP header name the profile")
    func everyFormatNamesIt() {
        let report = Self.rfc6749Report
        #expect(TextSummaryWriter.render(report).split(separator: "\n").prefix(3).contains("world: rfc6749"))
        #expect(MarkdownReportWriter.render(report).contains("| world | rfc6749 |"))
        #expect(HTMLReportWriter.render(report).contains("world rfc6749"))
        #expect(JUnitReportWriter.render(report).contains(#"<property name="world" value="rfc6749"/>"#))
        #expect(TAPReportWriter.render(report).contains("; world rfc6749"))
    }

    @Test("a diff of runs under different profiles says so")
    func diffNotesTheProfiles() {
        let diff = ReportDiff.compare(old: Runs.shared.reference, new: Self.rfc6749Report)
        #expect(diff.notes.contains("the world profiles differ (json-v1 and rfc6749)"))
    }
}
