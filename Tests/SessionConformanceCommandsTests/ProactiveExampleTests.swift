import ConformanceReports
import Foundation
@testable import SessionConformanceCommands
import Testing

@Suite("The Python example refreshing ahead of expiry")
struct ProactiveExampleTests {
    @Test("--refresh proactive refreshes on its own timer, and every kill during a refresh, under each trigger, is conclusive and passed")
    func killVariantsPass() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let adapter = "python3 " + Paths.root.appendingPathComponent("Examples/adapters/python/adapter.py").path + " --refresh proactive"
        let file = directory.appendingPathComponent("report.json").path
        let arguments = ["run", "--spec-root", Paths.specs, "--adapter", adapter, "--filter", "killed-*", "--report", "json=\(file)"]
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: arguments, console: console)
        #expect(code == .success, "\(console.stdout)\n\(console.stderr)")
        let report = try JSONReportWriter.read(path: file)
        let expiry = report.cases.filter { $0.id.hasSuffix("[expiry]") }
        #expect(expiry.count == 4)
        #expect(report.cases.allSatisfy { $0.status == .pass }, "\(report.cases.map { "\($0.id): \($0.status)" })")
        // The refresh of the expiry variants was started by the client's timer, while refreshDue moved the clock.
        for variant in expiry {
            #expect(variant.trace.contains { $0.text.contains("refresh.due-by-timer") }, "\(variant.id)")
        }
    }
}
