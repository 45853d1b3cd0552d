public import ConformanceProtocol

/// A client written against `ClientEffects`, hosted by `HostedClientAdapter` behind protocol v1.
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

    public init(implementation: ImplementationInfo, capabilities: [String], offlineResources: [String] = []) {
        self.implementation = implementation
        self.capabilities = capabilities
        self.offlineResources = offlineResources
    }
}
