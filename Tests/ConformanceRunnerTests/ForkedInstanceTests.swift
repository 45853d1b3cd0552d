@testable import ConformanceRunner
import ConformanceProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An adapter that declares `fork` runs each client instance in a process it forked (docs/adapter-protocol.md): a
/// kill ends that process alone, the adapter forks the next one, and the runner takes its hello.
@Suite("Forked client instances")
struct ForkedInstanceTests {
    static func zygote(_ arguments: String = "") -> ProcessAdapterLauncher {
        let script = Harness.packageRoot + "/Tests/ConformanceRunnerTests/Fixtures/fork/zygote.py"
        return ProcessAdapterLauncher(commandLine: "exec python3 -u '\(script)' \(arguments)", timeout: .seconds(10))
    }

    /// kill(2): a connection's own `kill()` hides the C function's name inside the tests.
    static func signal(_ processID: Int32, _ number: Int32) -> Int32 {
        kill(processID, number)
    }

    static func helloPID(_ connection: any AdapterConnection) throws -> Int {
        guard case .hello(_, _, _, _, _, _, let pid) = try connection.receive() else {
            throw AdapterFailure(.protocolViolation, "the first message was not a hello")
        }
        return try #require(pid)
    }

    @Test("a kill ends the forked instance alone; the adapter's process runs on and the next hello names a new process")
    func killEndsTheInstanceAlone() throws {
        let launcher = Self.zygote()
        defer { launcher.stopIdle() }
        let first = try launcher.launch(reusing: true)
        let firstPID = try Self.helloPID(first)
        first.kill()
        // The killed instance left half a line and the parent ended it: both are read and dropped before the hello.
        let second = try launcher.launch(reusing: false)
        let secondPID = try Self.helloPID(second)
        #expect(second === first, "the adapter's process serves the next instance")
        #expect(secondPID != firstPID)
        // The parent reaped the killed process before it forked the next one.
        #expect(Self.signal(Int32(firstPID), 0) == -1 && errno == ESRCH)
    }

    /// `--once`: the parent forks no next instance after the kill. `--lies`: the hello after the kill names the killed
    /// process again, so no new process said it.
    @Test("a fork adapter that gives no new instance after a kill is replaced by a new process", arguments: ["--once", "--lies"])
    func adapterWithoutANewInstanceIsReplaced(arguments: String) throws {
        let launcher = Self.zygote(arguments)
        defer { launcher.stopIdle() }
        let first = try launcher.launch(reusing: true)
        let firstPID = try Self.helloPID(first)
        first.kill()
        let second = try launcher.launch(reusing: false)
        #expect(second !== first)
        #expect(try Self.helloPID(second) != firstPID)
        second.kill()
    }

    @Test("a hello that declares fork and names the adapter's own process, another process or none is a protocol violation",
          arguments: ["--pid self", "--pid 1", "--pid none"])
    func forkPIDMustBeAForkedProcess(arguments: String) throws {
        let launcher = Self.zygote(arguments)
        defer { launcher.stopIdle() }
        let connection = try launcher.launch(reusing: true)
        let failure = try #require(throws: AdapterFailure.self) { try connection.receive() }
        #expect(failure.code == .protocolViolation)
        let named = arguments == "--pid none" ? "it names no pid of" : "its pid "
        #expect(failure.message.hasPrefix("the adapter's hello declares 'fork' but \(named)"))
        #expect(failure.message.hasSuffix(" a process it forked (another process of its process group)"))
        if arguments == "--pid 1" { #expect(failure.message.contains("its pid 1 is not")) }
    }

    @Test("the Python example explores the same with forked instances as with a new process at every kill, none reset")
    func forkedKillsExploreAsProcessDeaths() throws {
        let example = "python3 '\(Harness.packageRoot)/Examples/adapters/python/adapter.py'"
        let machine = try #require(try Harness.bundle(HostileAdapterTests.oneCase).stateMachine)
        func explore(_ arguments: String, processDeathEvery: Int) throws -> ExploreResult {
            let launcher = ProcessAdapterLauncher(commandLine: example + arguments, timeout: .seconds(20))
            defer { launcher.stopIdle() }
            let explorer = try Explorer(machine: machine, launcher: launcher)
            return explorer.explore(ExploreOptions(seed: 3, runs: 24, jobs: 2, processDeathEvery: processDeathEvery), now: { 0 })
        }
        let forked = try explore("", processDeathEvery: 8)
        let started = try explore(" --no-fork", processDeathEvery: 1)
        #expect(forked.killsEndForkedInstances && !started.killsEndForkedInstances)
        #expect(forked.resetKills == 0 && forked.processDeaths > 0)
        #expect(forked.processDeaths == started.processDeaths)
        let counts: (ExploreResult) -> [Int] = { [$0.passed, $0.failed, $0.inconclusive, $0.errored] }
        #expect(counts(forked) == counts(started))
        #expect(forked.coverage == started.coverage)
    }
}
