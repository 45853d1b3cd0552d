import AdapterProcess
import ConformanceProtocol
import Dispatch
import SimulatedWorld
import SpecModel
import POSIXSync

/// How runs are chosen: each from its seed alone, or aimed in part at what earlier runs reached least.
public enum ExploreStrategy: String, Sendable, CaseIterable {
    /// Every run's program from its seed alone.
    case random
    /// Runs go in batches of `ExploreOptions.batchSize`; in each batch every other run is aimed, alternately at
    /// one of the situations the batches before it reached least and at the next requirement path in turn
    /// (`ExploreRunID.focus`), so rare behaviours and the orders a violation needs are built on purpose. The aims
    /// depend only on earlier batches and the run's position, never on timing: same seed, same runs, whatever `jobs`.
    case guided
}

/// Options of one exploration.
public struct ExploreOptions: Sendable {
    public var seed: UInt64 = 1
    public var runs = 1_000
    public var jobs = 1
    public var strategy: ExploreStrategy = .guided
    /// Runs per batch of a guided exploration: the aims of a batch are chosen from the coverage of the ones before.
    public static let batchSize = 32
    public var shard: ExploreShard?
    /// Stops starting new runs once this much wall time passed; it never changes what a run decides.
    public var timeBudget: Double?
    /// Stops at the first run showing a failure this accepts: no run after it starts, the runs before it
    /// finish, so the run found is the lowest whatever `jobs` (a known-bad variant's search, `mutants --explore`).
    public var stopAt: (@Sendable (ExploreFailureKey) -> Bool)?
    /// Through an adapter that declared `reset`, every kill of run K ends the process when K is a multiple of this;
    /// in the other runs a kill ends the client instance and resets its process (a new process costs an
    /// interpreter's or a JVM's start). A failure first seen with such kills is played again with real ones
    /// before it is reported. 1: every kill ends the process (`--real-kills`).
    public var processDeathEvery = 8
    /// Through adapter processes, each worker stays on one CPU with the processes it starts (`CPUPinning`): worker K
    /// on the K-th CPU the runner may use (modulo their number); a lone worker where it runs when it starts, so
    /// that two explorations of one job each on a machine do not share a CPU. False leaves them to the scheduler
    /// (`--no-pin`).
    public var pinWorkers = true

    public init(seed: UInt64 = 1, runs: Int = 1_000, jobs: Int = 1, strategy: ExploreStrategy = .guided, shard: ExploreShard? = nil,
                timeBudget: Double? = nil, stopAt: (@Sendable (ExploreFailureKey) -> Bool)? = nil, processDeathEvery: Int = 8) {
        self.seed = seed
        self.runs = runs
        self.jobs = jobs
        self.strategy = strategy
        self.shard = shard
        self.timeBudget = timeBudget
        self.stopAt = stopAt
        self.processDeathEvery = processDeathEvery
    }
}

/// A distinct failure and the first run (lowest run number) that showed it.
public struct ExploreFailure: Sendable {
    public let key: ExploreFailureKey
    public let run: ExploreRunID
    public let outcome: CaseOutcome

    /// The finding this failure stands for: its check charging its requirements. A run may show the same oracle
    /// charging other requirements too; their messages belong to their own failures.
    public var finding: Finding? {
        outcome.findings.first { $0.check == key.check && $0.requirements == key.requirements }
    }
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
    /// The signal (SIGINT, SIGTERM) that stopped the exploration before its runs were done, or nil.
    public var interruptedBy: Int32?
    /// Runs that asked the client to sign in, and runs in which it reached an authenticated session.
    public var askedToSignIn = 0
    public var signedIn = 0
    /// Why sign-ins may have failed for a reason that is no requirement's (`WorldMismatch`), from the lowest run.
    public var worldHint: String?
    /// How many conclusive runs reached each situation (`Situation`): what the exploration put the client through.
    public var coverage: [Situation: Int] = [:]
    /// Kills that ended the adapter's process, and kills that reset it instead (`ExploreOptions.processDeathEvery`).
    public var processDeaths = 0
    public var resetKills = 0
    /// Whether the adapter declared `fork`: each kill ended a process it forked for the client instance, not itself.
    public var killsEndForkedInstances = false

    /// The situations no conclusive run reached, in declaration order.
    public var unreached: [Situation] { Situation.allCases.filter { coverage[$0, default: 0] == 0 } }

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

    /// Plays one case (a generated run, a shrunk one, or a candidate of the shrinker) with the run seed; `restarts`
    /// says where its client instances come from (`killsByReset(_:processDeathEvery:)`).
    public func play(_ acceptanceCase: AcceptanceCase, seed: UInt64, restarts: ClientRestarts = .processDeaths) -> CaseOutcome {
        CaseExecutor(acceptanceCase: acceptanceCase, machine: machine, launcher: launcher, capabilities: capabilities,
                     offlineResources: offlineResources, seed: seed, world: world, restarts: restarts).run()
    }

    /// Plays a generated run with kills as an exploration with `processDeathEvery` plays them.
    public func play(_ run: ExploreRunID, processDeathEvery: Int = 1) -> CaseOutcome {
        play(run.acceptanceCase(), seed: run.seed,
             restarts: killsByReset(run, processDeathEvery: processDeathEvery) ? .resets : .processDeaths)
    }

    /// Whether the kills of `run` reset the adapter's process: only for an adapter that declared `reset`, kept across
    /// cases, and not in the runs whose number is a multiple of `processDeathEvery` (every kill real in those). Never
    /// for one that declared `fork`: its kills end a forked process, as cheap as a reset and real.
    public func killsByReset(_ run: ExploreRunID, processDeathEvery: Int) -> Bool {
        processDeathEvery > 1 && run.run % processDeathEvery != 0 && launcher.reusesProcesses && capabilities.contains("reset")
            && !capabilities.contains("fork")
    }

    /// Runs 1...options.runs (the shard's part of them) over `options.jobs` workers. `progress` is called after
    /// each run with the runs done and the distinct failures it showed first (in the order they were met).
    public func explore(_ options: ExploreOptions, now: @Sendable () -> Double,
                        progress: @Sendable (_ done: Int, _ run: ExploreRunID, _ new: [ExploreFailureKey]) -> Void = { _, _, _ in })
        -> ExploreResult
    {
        let shard = options.shard ?? ExploreShard(index: 1, count: 1)!
        // Positions, not a list of runs: memory does not grow with `options.runs`.
        let runCount = shard.runCount(upTo: options.runs)
        let state = Locked(Tally())
        let next = Locked(0)
        // The position of the lowest run that showed a failure `stopAt` accepts: no later run starts.
        let stop = Locked(Int.max)
        let started = now()
        // A random exploration is one batch; a guided one waits for each batch before aiming the next.
        let batch = options.strategy == .guided ? ExploreOptions.batchSize : max(runCount, 1)
        var nextBatch = 0
        @Sendable func outOfTime() -> Bool { options.timeBudget.map { now() - started >= $0 } ?? false }
        var cpus = options.pinWorkers && launcher.startsProcesses ? CPUPinning.currentMask()?.cpus ?? [] : []
        if options.jobs == 1, !cpus.isEmpty { cpus = CPUPinning.runningCPU().map { [$0] } ?? [] }
        while nextBatch < runCount, RunInterruption.requested == nil, !outOfTime(), nextBatch < stop.current {
            let batchStart = nextBatch
            let batchEnd = min(batchStart + batch, runCount)
            let aims = options.strategy == .guided ? Self.aims(coverage: state.withLock { $0.coverage }) : []
            let paths = RequirementPath.allCases
            next.withLock { $0 = batchStart }
            DispatchQueue.concurrentPerform(iterations: max(1, min(options.jobs, batchEnd - batchStart))) { [cpus] worker in
                let unpinned = cpus.isEmpty ? nil : CPUPinning.pinCurrentThread(to: cpus[worker % cpus.count])
                defer { unpinned.map(CPUPinning.restore) }
                while RunInterruption.requested == nil {
                    if outOfTime() { return }
                    let position = next.takeNext()
                    guard position < batchEnd, position < stop.current else { return }
                    // Every other run of a guided batch is aimed, alternately at a rare situation and at the next
                    // requirement path; the rest stay random, to find what no aim names.
                    let offset = position - batchStart
                    let focus: ExploreAim? = aims.isEmpty || offset % 2 == 1 ? nil
                        : offset % 4 == 2 ? .path(paths[(position / 4) % paths.count])
                        : .situation(aims[(offset / 4) % aims.count])
                    let run = ExploreRunID(seed: options.seed, run: shard.run(at: position), focus: focus)
                    let byReset = killsByReset(run, processDeathEvery: options.processDeathEvery)
                    let outcome = play(run.acceptanceCase(), seed: run.seed, restarts: byReset ? .resets : .processDeaths)
                    // A run cut short by the signal is no run: it neither passed nor showed a failure.
                    if RunInterruption.requested != nil, outcome.status == .error { return }
                    let (done, new) = state.withLock { $0.record(run, outcome, world: world, killsByReset: byReset) }
                    if let stopAt = options.stopAt, ExploreFailureKey.of(outcome).contains(where: stopAt) {
                        stop.withLock { $0 = min($0, position) }
                    }
                    progress(done, run, new)
                }
            }
            nextBatch = batchEnd
        }
        var tally = state.withLock { $0 }
        if RunInterruption.requested == nil { confirmWithProcessDeaths(&tally, options) }
        var result = ExploreResult(options: options)
        if tally.done < runCount { result.interruptedBy = RunInterruption.requested }
        result.runsDone = tally.done
        result.passed = tally.counts[.pass, default: 0]
        result.failed = tally.counts[.fail, default: 0]
        result.inconclusive = tally.counts[.inconclusive, default: 0]
        result.errored = tally.counts[.error, default: 0]
        result.askedToSignIn = tally.askedToSignIn
        result.signedIn = tally.signedIn
        result.worldHint = tally.worldHint?.text
        result.coverage = tally.coverage
        result.processDeaths = tally.processDeaths
        result.resetKills = tally.resetKills
        result.killsEndForkedInstances = launcher.reusesProcesses && capabilities.contains("fork")
        result.failures = tally.first.map { ExploreFailure(key: $0.key, run: $0.value.run, outcome: $0.value.outcome) }
            .sorted { ($0.run, $0.key) < ($1.run, $1.key) }
        return result
    }

    /// A failure first seen in a run whose kills reset the adapter's process is played again with a new process
    /// for every instance, as `run --no-reset` plays it. Seen again: reported with that replay. Not seen: the run is
    /// played once more as it was found, kills as resets. Seen then, the run differs only by how processes were
    /// reused, so the adapter's `reset` kept something a new process would not have; that is reported instead
    /// (`error:resetKeepsState`), once per run. Not seen either, the client does not play the same run the same way
    /// (threads, real time): the failure stays as first seen, since nothing blames the reset.
    private func confirmWithProcessDeaths(_ tally: inout Tally, _ options: ExploreOptions) {
        // A client whose failures hang on thread timing can miss a failure in one replay and show it in the next, so
        // the reset is blamed only when six replays with real process deaths miss it and six with resets show it: a
        // failure that shows by chance in any share of replays is blamed wrongly at most once in 4,000 (1/2 to the 12th).
        var replayed: [ExploreRunID: [CaseOutcome]] = [:]
        var replayedWithResets: [ExploreRunID: [CaseOutcome]] = [:]
        func replays(_ run: ExploreRunID, _ restarts: ClientRestarts, _ count: Int, _ cache: inout [ExploreRunID: [CaseOutcome]],
                     until found: (CaseOutcome) -> Bool) -> [CaseOutcome] {
            var outcomes = cache[run] ?? []
            while outcomes.count < count, !outcomes.contains(where: found) {
                outcomes.append(play(run.acceptanceCase(), seed: run.seed, restarts: restarts))
            }
            cache[run] = outcomes
            return outcomes
        }
        for key in tally.first.keys.sorted() {
            guard let first = tally.first[key], killsByReset(first.run, processDeathEvery: options.processDeathEvery),
                  first.outcome.trace.events.contains(where: { if case .processKilled = $0.kind { true } else { false } })
            else { continue }
            let shows = { (outcome: CaseOutcome) in ExploreFailureKey.of(outcome).contains(key) }
            let real = replays(first.run, .newProcesses, 6, &replayed, until: shows)
            if let confirmed = real.first(where: shows) {
                tally.first[key] = (first.run, confirmed)
                continue
            }
            let again = replays(first.run, .resets, 6, &replayedWithResets) { !shows($0) }
            guard again.count == 6, again.allSatisfy(shows) else { continue }
            tally.first[key] = nil
            let resetKey = ExploreFailureKey(check: "error:resetKeepsState", requirements: [])
            guard tally.first[resetKey].map({ first.run < $0.run }) ?? true else { continue }
            let soft = first.outcome
            let reason = "resetKeepsState: run \(first.run) shows \(key) when its kills reset the adapter's process (\(again.count) times), and not "
                + "when they end it (\(real.map(\.status.rawValue).joined(separator: ", ")) in \(real.count) replays): the adapter's 'reset' "
                + "keeps state a new process would not have (docs/adapter-protocol.md, 'reset')"
            tally.first[resetKey] = (first.run, CaseOutcome(
                caseID: soft.caseID, title: soft.title, file: soft.file, requirements: soft.requirements, status: .error,
                findings: [], reason: reason, stderrTail: soft.stderrTail, trace: soft.trace, vault: soft.vault, seed: soft.seed))
        }
    }

    /// The situations to aim the next batch at: those reached least so far (never reached first), in declaration
    /// order among equals; at most a quarter of them, so the aims stay on what is rare.
    static func aims(coverage: [Situation: Int]) -> [Situation] {
        let ranked = Situation.allCases.enumerated().sorted {
            (coverage[$0.element, default: 0], $0.offset) < (coverage[$1.element, default: 0], $1.offset)
        }.map(\.element)
        let unreached = ranked.filter { coverage[$0, default: 0] == 0 }
        return unreached.isEmpty ? Array(ranked.prefix(max(1, ranked.count / 4))) : unreached
    }

    private struct Tally {
        var done = 0
        var counts: [CaseStatus: Int] = [:]
        var first: [ExploreFailureKey: (run: ExploreRunID, outcome: CaseOutcome)] = [:]
        var askedToSignIn = 0
        var signedIn = 0
        var worldHint: (run: ExploreRunID, text: String)?
        var coverage: [Situation: Int] = [:]
        var processDeaths = 0
        var resetKills = 0

        mutating func record(_ run: ExploreRunID, _ outcome: CaseOutcome, world: WorldProfile, killsByReset: Bool) -> (Int, [ExploreFailureKey]) {
            done += 1
            let kills = outcome.trace.events.reduce(0) { count, event in
                if case .processKilled = event.kind { count + 1 } else { count }
            }
            if killsByReset { resetKills += kills } else { processDeaths += kills }
            counts[outcome.status, default: 0] += 1
            for situation in outcome.reached { coverage[situation, default: 0] += 1 }
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
