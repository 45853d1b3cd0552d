/// The states of `Specs/state-machine.yaml`.
public enum SessionPhase: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Launch: reading storage and validating or refreshing with the server. No private content yet.
    case restoring
    case authenticated
    /// The single refresh of the account is in flight; requests wait for it.
    case refreshing
    case signedOut
    case signingIn

    public var description: String { rawValue }
}

/// A point-in-time view of the session.
public struct SessionSnapshot: Sendable, Hashable, CustomStringConvertible {
    /// The state.
    public var phase: SessionPhase
    /// The account of the session, when one is established.
    public var account: AccountID?
    /// The current generation.
    public var generation: SessionGeneration

    /// Creates a snapshot.
    public init(phase: SessionPhase, account: AccountID?, generation: SessionGeneration) {
        self.phase = phase
        self.account = account
        self.generation = generation
    }

    public var description: String { "\(phase) account=\(account?.rawValue ?? "-") generation=\(generation)" }
}
