@testable import ConformanceRunner
import Testing

/// Generated runs in which exploration found bugs of the Python example (docs/exploration.md), played again
/// through it: each passes now, with every kill a process death.
@Suite("Python example: runs that found its bugs")
struct PythonExampleFoundRunsTests {
    @Test("a switch whose secure writes were refused leaves no note of the ended account once a later write carries the end",
          arguments: ["1:2093@response-after-session-end"])
    func runPasses(run: String) throws {
        let id = try #require(ExploreRunID(run))
        let machine = try #require(try Harness.bundle(HostileAdapterTests.oneCase).stateMachine)
        let launcher = ProcessAdapterLauncher(commandLine: "python3 '\(Harness.packageRoot)/Examples/adapters/python/adapter.py'",
                                              timeout: .seconds(20))
        defer { launcher.stopIdle() }
        let outcome = try Explorer(machine: machine, launcher: launcher).play(id)
        #expect(outcome.status == .pass, "\(outcome.findings.map(\.message))")
    }
}
