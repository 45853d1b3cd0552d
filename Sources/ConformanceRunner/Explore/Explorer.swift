import ConformanceProtocol
import Dispatch
import SimulatedWorld
import SpecModel
import Synchronization

/// Options of one exploration.
public struct ExploreOptions: Sendable {
    public var seed: UInt64 = 1
    public var runs = 1_000
    public var jobs = 1
    public var shard: ExploreShard?
    /// Stops starting new runs once this much wall time passed; it never changes what a run decides.
    public var timeBudget: Double?
    /// Stops at the first run showing a failure this accepts: no run after it starts, the runs before it
    /// finish, so the run found is the lowest whatever `jobs` (a known-bad variant's search, `mutants --explore`).
    public var stopAt: (@Sendable (ExploreFailureKey) -> Bool)?

    public init(seed: UInt64 = 1, runs: Int = 1_000, jobs: Int = 1, shard: ExploreShard? = nil, timeBudget: Double? = nil,
                stopAt: (@Sendable (ExploreFailureKey) -> Bool)? = nil) {
        self.seed = seed
        self.runs = runs
        self.jobs = jobs
        self.shard = shard
        self.timeBudget = timeBudget
        self.stopAt = stopAt
    }
}

/// A distinct failure and the first run (lowest run number) that showed it.
public struct ExploreFailure: Sendable {
    public let key: ExploreFailureKey
    public let run: ExploreRunID
    public let outcome: CaseOutcome
}

/// What an exploration found.
public struct ExploreResult: Sendable {
    public let options: ExploreOptions
    public var runsDone = 0
    public var passed = 0
    public var failed = 0
    public var inconclusive = 0
    public var errored = 0
    /// Ordered by first run, then key.
    public var failures: [ExploreFailure] = []
    /// Set when the client could not be started at all.
    public var startupFailure: AdapterFailure?
    /// Runs that asked the client to sign in, and runs in which it reached an authenticated session.
    public var askedToSignIn = 0
    public var signedIn = 0
    /// Why sign-ins may have failed for a reason that is no requirement's (`WorldMismatch`), from the lowest run.
    public var worldHint: String?

    /// Runs that must ask for a sign-in before an exploration in which none succeeded counts as exploring nothing.
    public static let signInsBeforeJudging = 10

    /// No sign-in succeeded in many runs that asked for one: nothing the client does signed in was explored,
    /// and "no failure" would say nothing.
    public var exploredNothing: Bool { signedIn == 0 && askedToSignIn >= Self.signInsBeforeJudging }

    /// Says why the exploration explored nothing, when it did.
    public var exploredNothingReason: String? {
        guard exploredNothing else { return nil }
        return "the client reached an authenticated session in none of the \(askedToSignIn) runs that asked it to sign in: "
            + "nothing it does signed in was explored" + (worldHint.map { "; \($0)" } ?? "")
    }
}

/// Plays generated runs against a client and judges each with every oracle (docs/exploration.md).
public struct Explorer: Sendable {
    public let machine: StateMachine
    public let launcher: any AdapterLauncher
    public let implementation: ImplementationInfo
    let capabilities: [String]
    let offlineResources: [String]
    /// The world profile every run is played under.
    public let world: WorldProfile

    /// Starts the client once for its capabilities; throws when it cannot be started. Without `world`, the
    /// profile a `run` would choose: `json-v1`, or `rfc6749` for a loopback HTTP client.
    public init(machine: StateMachine, launcher: any AdapterLauncher, world: WorldProfile? = nil) throws(AdapterFailure) {
        self.machine = machine
        self.launcher = launcher
        let probe = try SuiteRunner.probe(launcher)
        implementation = probe.implementation
        capabilities = probe.capabilities
        offlineResources = probe.offlineResources
        self.world = world ?? (probe.httpMode == .loopback ? .rfc6749 : .jsonV1)
    }

    /// Plays one case (a generated run, a shrunk one, or a candidate of the shrinker) with the run seed.
    public func play(_ acceptanceCase: AcceptanceCase, seed: UInt64) -> CaseOutcome {
        CaseExecutor(acceptanceCase: acceptanceCase, machine: machine, launcher: launcher, capabilities: capabilities,
                     offlineResources: offlineResources, seed: seed, world: world).run()
    }

    public func play(_ run: ExploreRunID) -> CaseOutcome { play(run.acceptanceCase(), seed: run.seed) }

    /// Runs 1...options.runs (the shard's part of them) over `options.jobs` workers. `progress` is called after
    /// each run with the runs done and the distinct failures it showed first (in the order they were met).
    public func explore(_ options: ExploreOptions, now: @Sendable () -> Double,
                        progress: @Sendable (_ done: Int, _ run: ExploreRunID, _ new: [ExploreFailureKey]) -> Void = { _, _, _ in })
        -> ExploreResult
    {
        let shard = options.shard ?? ExploreShard(index: 1, count: 1)!
        let runs = Array(shard.runs(upTo: options.runs))
        let state = Mutex(Tally())
        let next = Atomic<Int>(0)
        // The position of the lowest run that showed a failure `stopAt` accepts: no later run starts.
        let stop = Atomic<Int>(Int.max)
        let started = now()
        DispatchQueue.concurrentPerform(iterations: max(1, min(options.jobs, runs.count))) { _ in
            while RunInterruption.requested == nil {
                if let budget = options.timeBudget, now() - started >= budget { return }
                let position = next.add(1, ordering: .relaxed).oldValue
                guard position < runs.count, position < stop.load(ordering: .relaxed) else { return }
                let run = ExploreRunID(seed: options.seed, run: runs[position])
                let outcome = play(run)
                let (done, new) = state.withLock { $0.record(run, outcome, world: world) }
                if let stopAt = options.stopAt, ExploreFailureKey.of(outcome).contains(where: stopAt) {
                    stop.min(position, ordering: .relaxed)
                }
                progress(done, run, new)
            }
        }
        return state.withLock { tally in
            var result = ExploreResult(options: options)
            result.runsDone = tally.done
            result.passed = tally.counts[.pass, default: 0]
            result.failed = tally.counts[.fail, default: 0]
            result.inconclusive = tally.counts[.inconclusive, default: 0]
            result.errored = tally.counts[.error, default: 0]
            result.askedToSignIn = tally.askedToSignIn
            result.signedIn = tally.signedIn
            result.worldHint = tally.worldHint?.text
            result.failures = tally.first.map { ExploreFailure(key: $0.key, run: $0.value.run, outcome: $0.value.outcome) }
                .sorted { ($0.run, $0.key) < ($1.run, $1.key) }
            return result
        }
    }

    private struct Tally {
        var done = 0
        var counts: [CaseStatus: Int] = [:]
        var first: [ExploreFailureKey: (run: ExploreRunID, outcome: CaseOutcome)] = [:]
        var askedToSignIn = 0
        var signedIn = 0
        var worldHint: (run: ExploreRunID, text: String)?

        mutating func record(_ run: ExploreRunID, _ outcome: CaseOutcome, world: WorldProfile) -> (Int, [ExploreFailureKey]) {
            done += 1
            counts[outcome.status, default: 0] += 1
            if WorldMismatch.askedToSignIn(outcome) {
                askedToSignIn += 1
                if WorldMismatch.signedIn(outcome) {
                    signedIn += 1
                } else if worldHint.map({ run < $0.run }) ?? true, let hint = WorldMismatch.hint(in: [outcome], profile: world) {
                    worldHint = (run, hint)
                }
            }
            var new: [ExploreFailureKey] = []
            for key in ExploreFailureKey.of(outcome) {
                if let known = first[key] {
                    // Workers finish out of order: keep the lowest run, so the report does not depend on timing.
                    if run < known.run { first[key] = (run, outcome) }
                } else {
                    first[key] = (run, outcome)
                    new.append(key)
                }
            }
            return (done, new)
        }
    }
}
