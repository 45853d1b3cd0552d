import ConformanceProtocol
import ConformanceRunner
import Foundation
import Mutants
import SpecModel
import POSIXSync
import Testing

/// Through an adapter that declares `reset`, most of explore's kills reset the adapter's process instead of
/// starting another; one run in `processDeathEvery` ends it at every kill, and a failure first seen with reset
/// kills is played again with real ones before it is reported.
@Suite("Explore: kills played as resets, confirmed with process deaths")
struct ExploreKillsTests {
    /// An in-process stand-in for an adapter process that declares `reset`: a reset instance (a case's first, or
    /// the one after a kill played as a reset) comes from `afterReset`, a new process from `fresh`.
    struct ResettableLauncher: AdapterLauncher {
        let fresh: @Sendable () -> any InProcessClient
        let afterReset: @Sendable () -> any InProcessClient
        var description: String { "resettable (in-process)" }
        var reusesProcesses: Bool { true }

        func launch() throws(AdapterFailure) -> any AdapterConnection { try launch(reusing: false) }

        func launch(reusing: Bool) throws(AdapterFailure) -> any AdapterConnection {
            InProcessConnection(DeclaringReset(inner: reusing ? afterReset() : fresh()))
        }
    }

    /// Adds `reset` to a client's hello.
    final class DeclaringReset: InProcessClient {
        let inner: any InProcessClient
        init(inner: any InProcessClient) { self.inner = inner }

        func start() -> [AdapterMessage] {
            inner.start().map { message in
                guard case .hello(let version, let implementation, let capabilities, let offline, let http, let triggers, _) = message else { return message }
                return .hello(protocolVersion: version, implementation: implementation, capabilities: capabilities + ["reset"],
                              offlineResources: offline, httpMode: http, refreshTriggers: triggers)
            }
        }

        func handle(_ message: RunnerMessage) -> [AdapterMessage] { inner.handle(message) }
    }

    static let trustStoredToken: @Sendable () -> any InProcessClient = { MutantRegistry.named("trust-stored-token")!.make() }

    static func explorer(fresh: @escaping @Sendable () -> any InProcessClient,
                         afterReset: @escaping @Sendable () -> any InProcessClient) throws -> Explorer {
        let machine = try #require(try KillMatrixTests.bundle().stateMachine)
        return try Explorer(machine: machine, launcher: ResettableLauncher(fresh: fresh, afterReset: afterReset))
    }

    @Test("one run in eight ends the process at every kill; the others reset it, and --real-kills ends it always")
    func whichRunsResetTheProcess() throws {
        let explorer = try Self.explorer(fresh: MutantRegistry.reference, afterReset: MutantRegistry.reference)
        let reset = (1...16).filter { explorer.killsByReset(ExploreRunID(seed: 1, run: $0), processDeathEvery: 8) }
        #expect(reset == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15])
        #expect(!(1...16).contains { explorer.killsByReset(ExploreRunID(seed: 1, run: $0), processDeathEvery: 1) })
        // An adapter that did not declare `reset` (every in-process client) is never reset.
        let machine = try #require(try KillMatrixTests.bundle().stateMachine)
        let plain = try Explorer(machine: machine, launcher: InProcessLauncher(description: "reference", make: MutantRegistry.reference))
        #expect(!plain.killsByReset(ExploreRunID(seed: 1, run: 1), processDeathEvery: 8))
    }

    @Test("a correct client explores the same with kills as resets and as process deaths, and counts both kinds of kill")
    func resetKillsChangeNothingForACorrectClient() throws {
        let explorer = try Self.explorer(fresh: MutantRegistry.reference, afterReset: MutantRegistry.reference)
        let sampled = explorer.explore(ExploreOptions(seed: 2, runs: 48, jobs: 2), now: { 0 })
        let real = explorer.explore(ExploreOptions(seed: 2, runs: 48, jobs: 2, processDeathEvery: 1), now: { 0 })
        #expect(sampled.resetKills > 0 && sampled.processDeaths > 0)
        #expect(real.resetKills == 0 && real.processDeaths == sampled.processDeaths + sampled.resetKills)
        let counts: (ExploreResult) -> [Int] = { [$0.passed, $0.failed, $0.inconclusive] }
        #expect(counts(sampled) == counts(real))
        #expect(sampled.coverage == real.coverage)
    }

    @Test("a failure that shows with reset kills and with process deaths is reported with its run played with process deaths")
    func confirmedFailureKeepsItsKey() throws {
        let explorer = try Self.explorer(fresh: Self.trustStoredToken, afterReset: Self.trustStoredToken)
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 40, jobs: 2), now: { 0 })
        let failure = try #require(result.failures.first { explorer.killsByReset($0.run, processDeathEvery: 8) })
        #expect(!failure.key.check.hasPrefix("error:"))
        // The outcome reported is the replay with real kills: it is what `run` and the shrunk case reproduce.
        let real = explorer.play(failure.run, processDeathEvery: 1)
        #expect(TraceRenderer(vault: failure.outcome.vault).render(failure.outcome.trace)
                == TraceRenderer(vault: real.vault).render(real.trace))
    }

    @Test("a failure that shows only when kills reset the adapter's process is reported as the adapter's reset keeping state")
    func unconfirmedFailureIsTheAdaptersReset() throws {
        // The reset instance trusts a stored token; a new process is the reference.
        let explorer = try Self.explorer(fresh: MutantRegistry.reference, afterReset: Self.trustStoredToken)
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 40, jobs: 2), now: { 0 })
        #expect(result.failures.map(\.key.check) == ["error:resetKeepsState"])
        let failure = try #require(result.failures.first)
        #expect(failure.outcome.status == .error)
        #expect(failure.outcome.reason?.hasPrefix("resetKeepsState: run \(failure.run) shows ") == true)
        #expect(failure.outcome.reason?.contains("the adapter's 'reset' keeps state a new process would not have") == true)
        // With every kill a process death, nothing is found.
        let real = explorer.explore(ExploreOptions(seed: 1, runs: 40, jobs: 2, processDeathEvery: 1), now: { 0 })
        #expect(real.failures.isEmpty)
    }

    @Test("a failure seen with reset kills that shows neither with process deaths nor with resets again stays as first seen")
    func failureThatDoesNotShowAgainIsNotBlamedOnTheReset() throws {
        // The reset instances trust a stored token while the exploration's runs are played, and no longer when its
        // failures are played again: a client that does not play the same run the same way.
        let faulty = Locked(true)
        let explorer = try Self.explorer(fresh: MutantRegistry.reference, afterReset: {
            faulty.withLock { $0 } ? Self.trustStoredToken() : MutantRegistry.reference()
        })
        let options = ExploreOptions(seed: 1, runs: 40, jobs: 2)
        let result = explorer.explore(options, now: { 0 }, progress: { done, _, _ in
            if done == options.runs { faulty.withLock { $0 = false } }
        })
        #expect(!result.failures.isEmpty)
        #expect(!result.failures.contains { $0.key.check.hasPrefix("error:") }, "\(result.failures.map(\.key.check))")
        #expect(result.failures.allSatisfy { explorer.killsByReset($0.run, processDeathEvery: 8) })
    }

    @Test("explore's memory does not grow with --runs: ten billion runs under a time budget stop at the budget")
    func runsAreNotListedUpFront() throws {
        let explorer = try Self.explorer(fresh: MutantRegistry.reference, afterReset: MutantRegistry.reference)
        // A clock that moves one second each time it is read: the budget runs out after a few runs.
        let ticks = Locked(0)
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 10_000_000_000, jobs: 2, timeBudget: 40),
                                      now: { Double(ticks.takeNext() + 1) })
        #expect(result.runsDone > 0 && result.runsDone < 100)
        #expect(result.interruptedBy == nil)
        #expect(ExploreShard(index: 2, count: 3)?.runCount(upTo: 10_000_000_000) == 3_333_333_333)
        #expect(ExploreShard(index: 3, count: 3)?.runCount(upTo: 2) == 0)
    }
}
