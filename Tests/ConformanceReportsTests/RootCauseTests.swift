import ConformanceReports
import Foundation
import Testing

@Suite("Root causes", .serialized)
struct RootCauseTests {
    static let neverRefreshes: ComplianceReport = {
        do { return try Runs.report(NeverRefreshingClient.launcher).report } catch { fatalError("\(error)") }
    }()

    @Test func scratch() throws {
        let report = Self.neverRefreshes
        try TextSummaryWriter.render(report).write(toFile: "/tmp/nr-console.txt", atomically: true, encoding: .utf8)
        try MarkdownReportWriter.render(report).write(toFile: "/tmp/nr.md", atomically: true, encoding: .utf8)
        try JSONReportWriter.render(report).write(toFile: "/tmp/nr.json", atomically: true, encoding: .utf8)
        let undeclared = try Runs.report(NeverRefreshingClient.undeclaredLauncher).report
        try JSONReportWriter.render(undeclared).write(toFile: "/tmp/nr-undeclared.json", atomically: true, encoding: .utf8)
        try JSONReportWriter.render(Runs.shared.defective).write(toFile: "/tmp/defective.json", atomically: true, encoding: .utf8)
    }
}
