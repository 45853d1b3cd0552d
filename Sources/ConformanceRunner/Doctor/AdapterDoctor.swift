import ConformanceProtocol
import Dispatch
import SimulatedWorld
import SpecModel

/// What `doctor` found: the adapter's hello, each probe, and every diagnosis in the order seen.
public struct DoctorReport: Sendable {
    public struct Hello: Sendable {
        public let implementation: ImplementationInfo
        public let capabilities: [String]
        public let httpMode: HTTPMode
        /// Nil when the hello does not declare them.
        public let refreshTriggers: [String]?
    }

    public struct Probe: Sendable {
        public enum Status: String, Sendable {
            /// Nothing wrong with the adapter (the client's verdicts are `run`'s).
            case ok
            /// The adapter's output showed problems; the probe ran to its end.
            case problems
            /// The probe ended in an adapter error; the probes after it were not run.
            case error
            /// Not run: an earlier probe ended in an adapter error.
            case notRun = "not-run"
        }

        public let id: String
        public let title: String
        public let status: Status
        /// Real time the probe took; zero when not run.
        public let seconds: Double
    }

    public let adapter: String
    public let hello: Hello?
    public let probes: [Probe]
    public let diagnoses: [Diagnosis]

    public var problems: [Diagnosis] { diagnoses.filter { $0.severity == .problem } }
    /// The adapter never got through its first hello: nothing else could be checked.
    public var notStarted: Bool { hello == nil }
}

/// Plays the doctor's probes against an adapter, one at a time in a fixed order, and reads from each trace
/// what the adapter did wrong. Stops at the first probe that ends in an adapter error: the rest would fail
/// the same way, each after a full --timeout.
public struct AdapterDoctor: Sendable {
    public let launcher: any AdapterLauncher
    /// The spec's state machine (the probes' transitions are read against it).
    public let machine: StateMachine
    public var seed: UInt64 = 1
    /// Nil: the profile `run` would use for the adapter's HTTP mode, from `worlds` (the spec's) when it has it.
    public var world: WorldProfile?
    public var worlds: [WorldProfile] = []
    /// A probe slower than this many seconds of real time gets a `slow-step` note.
    public var slowProbe: Double = 5

    public init(launcher: any AdapterLauncher, machine: StateMachine) {
        self.launcher = launcher
        self.machine = machine
    }

    public func examine() -> DoctorReport {
        defer { launcher.stopIdle() }
        let cases = DoctorProbes.cases()
        let declared: AdapterProbe
        do {
            declared = try SuiteRunner.probe(launcher)
        } catch {
            return DoctorReport(adapter: launcher.description, hello: nil,
                                probes: cases.map { .init(id: $0.id, title: $0.title, status: .notRun, seconds: 0) },
                                diagnoses: [FailureDiagnosis.startup(error)])
        }
        let hello = DoctorReport.Hello(implementation: declared.implementation, capabilities: declared.capabilities,
                                       httpMode: declared.httpMode,
                                       refreshTriggers: declared.refreshTriggers.map { $0.map(\.rawValue).sorted() })
        let world = world ?? SuiteRunner.defaultWorld(for: declared.httpMode, among: worlds)
        var diagnoses = Self.helloNotes(hello)
        var probes: [DoctorReport.Probe] = []
        var stopped = false
        for probeCase in cases {
            guard !stopped else {
                probes.append(.init(id: probeCase.id, title: probeCase.title, status: .notRun, seconds: 0))
                continue
            }
            let started = DispatchTime.now().uptimeNanoseconds
            let outcome = CaseExecutor(acceptanceCase: probeCase, machine: machine, launcher: launcher,
                                       capabilities: declared.capabilities, offlineResources: declared.offlineResources,
                                       seed: seed, world: world, refreshTriggers: declared.refreshTriggers).run()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            var found: [Diagnosis]
            if outcome.status == .error {
                found = [FailureDiagnosis.probe(probeCase.id, reason: outcome.reason ?? "error", stderrTail: outcome.stderrTail,
                                                redact: outcome.vault.redact)]
                // A real-time wait before the failure is often its cause (the step's time ran out).
                found += outcome.trace.realTimeWaits.prefix(1).map { TraceDiagnosis.realTimeWait($0, probe: probeCase.id) }
                stopped = true
            } else {
                let index = TraceIndex(outcome.trace, profile: world, machine: machine)
                found = TraceDiagnosis(probe: probeCase.id, outcome: outcome, index: index, capabilities: declared.capabilities,
                                       world: world).diagnoses
                    .map { $0.redacted(by: outcome.vault.redact) }
            }
            if seconds > slowProbe, !stopped {
                found.append(Diagnosis(.slowStep, probe: probeCase.id,
                                       seen: "the probe took \(Self.tenths(seconds)) s of real time for \(probeCase.steps.count) steps"))
            }
            let status: DoctorReport.Probe.Status = stopped ? .error : found.contains { $0.severity == .problem } ? .problems : .ok
            probes.append(DoctorReport.Probe(id: probeCase.id, title: probeCase.title, status: status, seconds: seconds))
            for diagnosis in found {
                if let earlier = diagnoses.firstIndex(where: { $0.check == diagnosis.check && $0.seen == diagnosis.seen }) {
                    diagnoses[earlier].alsoIn.append(probeCase.id)
                } else {
                    diagnoses.append(diagnosis)
                }
            }
        }
        return DoctorReport(adapter: launcher.description, hello: hello, probes: probes, diagnoses: diagnoses)
    }

    /// What a hello declares that the suite does not know: legal (a later runner may), but probably a typo.
    private static func helloNotes(_ hello: DoctorReport.Hello) -> [Diagnosis] {
        hello.capabilities.filter { !knownCapabilities.contains($0) }.map {
            Diagnosis(.unknownCapability, probe: nil, seen: "the hello declares the capability '\($0)'")
        }
    }

    static let knownCapabilities = ["background-refresh", "offline-browsing", "reset", "fork"]

    private static func tenths(_ value: Double) -> String {
        String((value * 10).rounded() / 10)
    }
}
