/// One state transition as emitted to the `SessionEventSink` and the log. Carries no token.
public struct SessionTransition: Sendable, Hashable, CustomStringConvertible {
    /// Which transition of the state machine.
    public var id: SessionTransitionID
    /// The account the transition concerns (the one signed out, refreshed or signed in), when known.
    public var account: AccountID?
    /// The generation after the transition.
    public var generation: SessionGeneration
    /// Why it happened.
    public var reason: TransitionReason
    /// The failure class behind a deferral, rejection or failed sign-in.
    public var failureClass: FailureClass?

    /// Creates a transition event.
    public init(id: SessionTransitionID, account: AccountID?, generation: SessionGeneration, reason: TransitionReason, failureClass: FailureClass? = nil) {
        self.id = id
        self.account = account
        self.generation = generation
        self.reason = reason
        self.failureClass = failureClass
    }

    /// The source state.
    public var from: SessionPhase { id.from }
    /// The target state.
    public var to: SessionPhase { id.to }
    /// The event that triggers it.
    public var event: SessionEventName { id.event }

    public var description: String {
        var text = "\(id.rawValue) \(from)->\(to) event=\(event.rawValue) account=\(account?.rawValue ?? "-") generation=\(generation) reason=\(reason.rawValue)"
        if let failureClass { text += " failureClass=\(failureClass.rawValue)" }
        return text
    }
}

/// Why a transition happened.
public enum TransitionReason: String, Sendable, Hashable, CaseIterable, Codable {
    case storedSessionValidated
    case noStoredSession
    case storedSessionRejected
    case accountMismatch
    case signOutRequested
    case accessTokenRejected
    case accessTokenExpiring
    case backgroundRefresh
    case retryAfterBackoff
    case tokensRotated
    case retryableFailure
    case refreshRejected
    case userSignedOut
    case switchingAccount
    case userSignIn
    case credentialsAccepted
    case invalidCredentials
    case signInFailed
}
