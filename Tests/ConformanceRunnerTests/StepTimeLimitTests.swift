@testable import ConformanceRunner
import Testing

/// The wall time a step may take grows with the commands it sends (`StepTimeLimit`); a hang still ends the case.
@Suite("Step time limits scale with the commands a step sends")
struct StepTimeLimitTests {
    static let adapter = "exec python3 -u '\(HostileAdapterTests.fixtures)/slow_commands.py'"

    static func requests(_ count: Int) -> String {
        Harness.caseFile("""
              - id: many-requests
                title: Requests while signed out
                requirements: [SESSION-STATE-MACHINE]
                steps:
                  - launch: {}
                  - request: { resource: feed, count: \(count) }

            """)
    }

    static func outcome(_ arguments: String, count: Int) throws -> CaseOutcome {
        let launcher = ProcessAdapterLauncher(commandLine: adapter + " " + arguments, timeout: .seconds(1))
        return try #require(try Harness.run(requests(count), launcher: launcher).outcomes.first)
    }

    @Test("one command gets the base limit; each further 100 commands add one base")
    func limitGrowsWithCommands() {
        #expect(StepTimeLimit.limit(base: .seconds(10), commands: 0) == .seconds(10))
        #expect(StepTimeLimit.limit(base: .seconds(10), commands: 1) == .seconds(10))
        #expect(StepTimeLimit.limit(base: .seconds(10), commands: 101) == .seconds(20))
        #expect(StepTimeLimit.limit(base: .seconds(10), commands: 1001) == .seconds(110))
    }

    @Test("a step of 300 commands that takes 1.5 s of wall time is no hang under a base limit of 1 s")
    func manyCommandsGetMoreTime() throws {
        let outcome = try Self.outcome("--per-command 0.005", count: 300)
        #expect(outcome.status != .error, "\(outcome.reason ?? "")")
    }

    @Test("a one-command step that hangs still errors at the base limit")
    func oneCommandHangErrorsInTheBaseLimit() throws {
        let started = ContinuousClock.now
        let outcome = try Self.outcome("--hang", count: 1)
        #expect(outcome.status == .error)
        #expect(outcome.reason == "hung: the adapter sent nothing for 1.0 seconds while the runner waited for it")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("a step of 300 commands that hangs errors at its own, larger limit")
    func manyCommandsHangStillErrors() throws {
        let outcome = try Self.outcome("--hang", count: 300)
        #expect(outcome.status == .error)
        #expect(outcome.reason?.hasPrefix("hung: the adapter sent nothing for 3.9") == true, "\(outcome.reason ?? "")")
    }
}
