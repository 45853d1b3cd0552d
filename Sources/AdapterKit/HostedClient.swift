// One import brings every type AdapterKit's API exposes: the protocol's messages (and, through them, JSONValue).
@_exported public import ConformanceProtocol

/// A client written against `ClientEffects`, hosted by `HostedClientAdapter` behind protocol v1.
///
/// Where its code runs: `perform` and every task the client starts inherit the host's one serial executor
/// (`ClientEffects.taskExecutor`), which the host drains after each runner message; so the client is idle whenever
/// the host answers a barrier, and the same messages in give the same messages out. An `actor` of the client runs
/// its methods on its own executor: make `ClientEffects.serialExecutor` its `unownedExecutor` (or keep its work
/// in tasks started with `Task(executorPreference: effects.taskExecutor)`), or its jobs run on the global pool, the
/// host cannot tell when it is idle, and barriers are answered too early. Child tasks (`async let`, task groups)
/// inherit the executor preference; unstructured ones (`Task {}`, `Task.detached`) do not: start them with
/// `Task(executorPreference: effects.taskExecutor)`, or the nonisolated `async` calls they make (every effect of
/// `ClientEffects`) run on the global pool, after the host answered the barrier.
public protocol HostedClient: AnyObject, Sendable {
    /// Created when the runner's `welcome` arrives.
    init(effects: ClientEffects)
    /// Carries out one command; runs as its own task on the host's executor.
    func perform(_ command: AppCommand) async -> CommandResult
}

/// Who a hosted client is, for its `hello`.
public struct HostedClientIdentity: Sendable {
    public var implementation: ImplementationInfo
    public var capabilities: [String]
    public var offlineResources: [String]
    /// What starts the client's refreshes (`unauthorized`, `expiry`, `background`); nil: not declared, the runner
    /// finds out (docs/adapter-protocol.md, Handshake).
    public var refreshTriggers: [String]?
    /// How the client's HTTP reaches the world: `http` effects (`.message`), or its own stack to the runner's
    /// server (`.loopback`, with `ClientEffects.loopback`).
    public var http: HTTPMode

    public init(implementation: ImplementationInfo, capabilities: [String], offlineResources: [String] = [],
                refreshTriggers: [String]? = nil, http: HTTPMode = .message) {
        self.implementation = implementation
        self.capabilities = capabilities
        self.offlineResources = offlineResources
        self.refreshTriggers = refreshTriggers
        self.http = http
    }
}
