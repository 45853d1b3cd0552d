/// Every outward effect of a `SessionClient`, injected. SessionKit has no I/O of its own.
public struct SessionEnvironment: Sendable {
    /// HTTP exchanges with the server.
    public var transport: any HTTPTransport
    /// Where the session record (tokens) lives.
    public var secureStorage: any SecureStorage
    /// Plain storage for the account-keyed content cache.
    public var preferences: any PreferencesStorage
    /// Wall time (logs only), monotonic time (expiry) and sleeps (backoff).
    public var clock: any SessionClock
    /// Jitter and session identifiers.
    public var random: any RandomSource
    /// Log records.
    public var log: any LogSink
    /// Content shown and sign-in prompts.
    public var ui: any UISink
    /// Session transitions.
    public var events: any SessionEventSink
    /// Where SessionKit runs the tasks it starts (restore, refresh, revocation, backoff waits). Nil runs
    /// them on the default executor. A runner injects one serial executor to make the client
    /// deterministic and to know when it has no runnable work left.
    public var taskExecutor: (any TaskExecutor)?

    /// Bundles the effects.
    public init(
        transport: any HTTPTransport,
        secureStorage: any SecureStorage,
        preferences: any PreferencesStorage,
        clock: any SessionClock,
        random: any RandomSource,
        log: any LogSink,
        ui: any UISink,
        events: any SessionEventSink,
        taskExecutor: (any TaskExecutor)? = nil
    ) {
        self.transport = transport
        self.secureStorage = secureStorage
        self.preferences = preferences
        self.clock = clock
        self.random = random
        self.log = log
        self.ui = ui
        self.events = events
        self.taskExecutor = taskExecutor
    }
}
