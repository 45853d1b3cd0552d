import POSIXSync
import SessionKit
import SimulatedWorld

/// The whole deterministic world of a `SessionClient`: virtual clock, network and server, secure storage
/// with lock state, preferences, seeded randomness, and one trace of every effect. Secure storage,
/// preferences and the server outlive processes, so a test can kill the app and launch it again.
public final class TestWorld: Sendable {
    /// The seed of every random source in the world.
    public let seed: UInt64
    public let trace: WorldTrace
    public let clock: ManualClock
    public let server: WorldHTTPServer
    public let transport: ScriptedTransport
    public let secureStorage: InMemorySecureStorage
    public let preferences: InMemoryPreferences
    private let processCount = Locked(0)

    /// Creates a world; storage starts empty with the given lock state. The server speaks `profile`.
    public init(seed: UInt64 = 1, server configuration: WorldHTTPServer.Configuration = .init(),
                lockState: InMemorySecureStorage.LockState = .unlocked, profile: WorldProfile = .jsonV1) {
        self.seed = seed
        let trace = WorldTrace()
        let clock = ManualClock()
        let server = WorldHTTPServer(clock: clock, seed: seed &+ 0x5EED, configuration: configuration, profile: profile)
        self.trace = trace
        self.clock = clock
        self.server = server
        transport = ScriptedTransport(trace: trace, responder: server)
        secureStorage = InMemorySecureStorage(trace: trace, lockState: lockState)
        preferences = InMemoryPreferences(trace: trace)
    }

    /// The effects as process `process` sees them.
    public func environment(for process: ProcessHandle) -> SessionEnvironment {
        let sinks = TraceSinks(trace: trace, process: process)
        return SessionEnvironment(
            transport: transport.view(for: process),
            secureStorage: secureStorage.view(for: process),
            preferences: preferences.view(for: process),
            clock: ProcessClock(clock: clock, trace: trace, process: process),
            random: SeededRandomSource(seed: seed &+ UInt64(process.id) &* 0x9E37_79B9),
            log: sinks,
            ui: sinks,
            events: sinks
        )
    }

    /// Starts a new app process (the client is created; call `launch()` on it).
    public func startProcess(configuration: SessionConfiguration = SessionConfiguration()) -> TestProcess {
        let id = processCount.withLock { count -> Int in
            count += 1
            return count
        }
        let handle = ProcessHandle(id: id)
        trace.append(.processStarted, process: id)
        return TestProcess(handle: handle, client: SessionClient(configuration: configuration, environment: environment(for: handle)))
    }

    /// SIGKILL: the process's pending effects never complete or apply; storage and server stay.
    public func kill(_ process: TestProcess) {
        trace.append(.processKilled, process: process.handle.id)
        process.handle.kill()
    }
}

/// One running app process.
public struct TestProcess: Sendable {
    public let handle: ProcessHandle
    public let client: SessionClient
}
