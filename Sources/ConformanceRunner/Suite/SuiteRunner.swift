import ConformanceProtocol
import Dispatch
import Foundation
import SimulatedWorld
import SpecModel
import POSIXSync

/// What a run of the suite produced.
public struct RunResult: Sendable {
    public let implementation: ImplementationInfo?
    public let capabilities: [String]
    /// The declared offline policy: cached resources that may show before validation.
    public let offlineResources: [String]
    public let adapter: String
    public let seed: UInt64
    public let outcomes: [CaseOutcome]
    public let requirements: [RequirementVerdict]
    /// Set when the adapter could not even be started; no case ran.
    public let startupFailure: AdapterFailure?
    /// The signal that stopped the run before every selected case ran; `outcomes` holds the cases that completed.
    public var interruptedBy: Int32? = nil
    /// The world profile the cases ran under; nil when the adapter could not be started.
    public var world: WorldProfile? = nil

    /// Certified: every MUST passed (or does not apply) and nothing errored.
    public var mustRequirementsPass: Bool {
        startupFailure == nil && !outcomes.contains { $0.status == .error } && !requirements.contains {
            $0.level == .must && [.fail, .error, .untested].contains($0.status)
        }
    }
}

/// Options of one run.
public struct RunOptions: Sendable {
    public var seed: UInt64 = 1
    public var jobs = 1
    /// Case IDs to run; all when empty. `*` matches any run of characters, anywhere (`*refresh*`).
    public var filters: [String] = []
    /// When set, only the cases with these IDs run, of those the filters select (a shard of the suite).
    public var only: Set<String>?
    /// The world profile every case runs under; nil: `json-v1` for in-process and message-mode adapters,
    /// `rfc6749` for loopback-HTTP adapters (the spec's `worlds/` files, else the built-in ones).
    public var world: WorldProfile?

    public init(seed: UInt64 = 1, jobs: Int = 1, filters: [String] = [], only: Set<String>? = nil,
                world: WorldProfile? = nil) {
        self.seed = seed
        self.jobs = jobs
        self.filters = filters
        self.only = only
        self.world = world
    }
}

/// Runs the acceptance cases of a spec against one client.
public struct SuiteRunner: Sendable {
    public let bundle: SpecBundle
    public let launcher: any AdapterLauncher

    public init(bundle: SpecBundle, launcher: any AdapterLauncher) {
        self.bundle = bundle
        self.launcher = launcher
    }

    public func selectedCases(_ options: RunOptions) -> [AcceptanceCase] {
        let playable = bundle.playableCases
        let filtered = options.filters.isEmpty ? playable : playable.filter { candidate in
            options.filters.contains { CaseSelection.matches(pattern: $0, case: candidate) }
        }
        guard let only = options.only else { return filtered }
        return filtered.filter { only.contains($0.id) }
    }

    /// Runs the selected cases; `progress` is called after each case with the number done and the total.
    public func run(_ options: RunOptions, progress: @Sendable (Int, Int, CaseOutcome) -> Void = { _, _, _ in }) -> RunResult {
        guard let machine = bundle.stateMachine, let catalogue = bundle.catalogue else {
            // Lint refuses such a spec; a caller that skipped lint gets a failed run, not a trap.
            return RunResult(implementation: nil, capabilities: [], offlineResources: [], adapter: launcher.description,
                             seed: options.seed, outcomes: [], requirements: [],
                             startupFailure: AdapterFailure(.notRunning, "the spec has no requirements or no state machine"))
        }
        let probe: AdapterProbe
        defer { launcher.stopIdle() }
        do {
            probe = try Self.probe(launcher)
        } catch {
            return .notStarted(error, adapter: launcher.description, seed: options.seed, catalogue: catalogue)
        }
        let cases = selectedCases(options)
        let world = options.world ?? defaultWorld(for: probe.httpMode)
        let results = Locked<[Int: CaseOutcome]>([:])
        let next = Locked(0)
        let done = Locked(0)
        // Each worker takes the next case until none is left; outcomes keep the cases' order.
        DispatchQueue.concurrentPerform(iterations: max(1, min(options.jobs, cases.count))) { _ in
            while RunInterruption.requested == nil {
                let position = next.takeNext()
                guard position < cases.count else { return }
                let started = DispatchTime.now().uptimeNanoseconds
                var outcome = CaseExecutor(acceptanceCase: cases[position], machine: machine, launcher: launcher,
                                           capabilities: probe.capabilities, offlineResources: probe.offlineResources,
                                           seed: options.seed, world: world, refreshTriggers: probe.refreshTriggers).run()
                outcome.duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                // A case cut short by the interruption did not complete; it is left out rather than an error.
                if RunInterruption.requested != nil, outcome.status == .error { return }
                results.withLock { $0[position] = outcome }
                progress(done.takeNext() + 1, cases.count, outcome)
            }
        }
        let outcomes = results.withLock { all in cases.indices.compactMap { all[$0] } }
        var result = RunResult(implementation: probe.implementation, capabilities: probe.capabilities, offlineResources: probe.offlineResources, adapter: launcher.description,
                               seed: options.seed, outcomes: outcomes,
                               requirements: VerdictBuilder.verdicts(catalogue: catalogue, outcomes: outcomes, capabilities: probe.capabilities),
                               startupFailure: nil)
        if outcomes.count < cases.count { result.interruptedBy = RunInterruption.requested }
        result.world = world
        return result
    }

    /// The profile a run without `--world` uses: the spec's `json-v1` for in-process and message-mode
    /// adapters, its `rfc6749` for loopback HTTP (the built-in ones when the spec has no `worlds/`).
    public func defaultWorld(for mode: HTTPMode) -> WorldProfile {
        Self.defaultWorld(for: mode, among: bundle.worlds)
    }

    /// The default profile for `mode`, from `worlds` (a spec's) when it has one of that name.
    public static func defaultWorld(for mode: HTTPMode, among worlds: [WorldProfile]) -> WorldProfile {
        let fallback: WorldProfile = mode == .loopback ? .rfc6749 : .jsonV1
        return worlds.first { $0.name == fallback.name } ?? fallback
    }

    /// Starts the client once to read its identity and capabilities.
    static func probe(_ launcher: any AdapterLauncher) throws(AdapterFailure) -> AdapterProbe {
        let connection = try launcher.launch()
        // Released, not killed: an adapter that declared `reset` serves the first case.
        defer { connection.release() }
        let message = try connection.receive()
        guard case .hello(let version, let implementation, let capabilities, let offlineResources, let httpMode,
                          let refreshTriggers, _) = message else {
            throw AdapterFailure(.protocolViolation, "the adapter's first message was not 'hello'",
                                 stderrTail: String(connection.capturedLog.suffix(4_000)))
        }
        guard version == adapterProtocolVersion else {
            throw AdapterFailure(.versionMismatch,
                                 "this runner speaks protocol \(adapterProtocolVersion); the adapter sent \(version)",
                                 stderrTail: String(connection.capturedLog.suffix(4_000)))
        }
        var triggers: Set<RefreshTrigger>?
        if let refreshTriggers {
            let known = RefreshTrigger.allCases.map(\.rawValue)
            if let unknown = refreshTriggers.first(where: { !known.contains($0) }) {
                throw AdapterFailure(.protocolViolation,
                                     "hello's refreshTriggers names '\(unknown)', not one of \(known.joined(separator: ", "))",
                                     stderrTail: String(connection.capturedLog.suffix(4_000)))
            }
            triggers = Set(refreshTriggers.compactMap(RefreshTrigger.init(rawValue:)))
        }
        return AdapterProbe(implementation: implementation, capabilities: capabilities, offlineResources: offlineResources,
                            httpMode: httpMode, refreshTriggers: triggers)
    }
}

/// What a client's `hello` declared.
struct AdapterProbe {
    let implementation: ImplementationInfo
    let capabilities: [String]
    let offlineResources: [String]
    let httpMode: HTTPMode
    /// Nil: not declared; the runner finds out per case (a variant whose trigger started no refresh is skipped).
    let refreshTriggers: Set<RefreshTrigger>?
}

extension RunResult {
    /// The result of a run whose client could not be started: no case ran, every requirement untested.
    public static func notStarted(_ failure: AdapterFailure, adapter: String, seed: UInt64, catalogue: RequirementsCatalogue?) -> RunResult {
        RunResult(implementation: nil, capabilities: [], offlineResources: [], adapter: adapter, seed: seed, outcomes: [],
                  requirements: catalogue.map { VerdictBuilder.verdicts(catalogue: $0, outcomes: [], capabilities: []) } ?? [],
                  startupFailure: failure)
    }
}
