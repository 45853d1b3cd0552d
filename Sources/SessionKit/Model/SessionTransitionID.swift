/// The transitions of `Specs/state-machine.yaml`, with their endpoints, event and generation effect.
/// This table is the only place SessionKit defines them; the state machine fires nothing else.
public enum SessionTransitionID: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case restoreValidated = "restore-validated"
    case restoreFailed = "restore-failed"
    case refreshStarted = "refresh-started"
    case refreshSucceeded = "refresh-succeeded"
    case refreshDeferred = "refresh-deferred"
    case refreshRejected = "refresh-rejected"
    case signOut = "sign-out"
    case signOutDuringRefresh = "sign-out-during-refresh"
    case signInStarted = "sign-in-started"
    case signInSucceeded = "sign-in-succeeded"
    case signInFailed = "sign-in-failed"
    case accountSwitch = "account-switch"
    case restoreSignOut = "restore-sign-out"
    case switchDuringRefresh = "switch-during-refresh"
    case signInCancelled = "sign-in-cancelled"

    /// What a transition does to the session generation.
    public enum GenerationEffect: String, Sendable, Hashable, Codable {
        case keep, increment
    }

    /// The source state.
    public var from: SessionPhase {
        switch self {
        case .restoreValidated, .restoreFailed, .restoreSignOut: .restoring
        case .refreshStarted, .signOut, .accountSwitch: .authenticated
        case .refreshSucceeded, .refreshDeferred, .refreshRejected, .signOutDuringRefresh, .switchDuringRefresh: .refreshing
        case .signInStarted: .signedOut
        case .signInSucceeded, .signInFailed, .signInCancelled: .signingIn
        }
    }

    /// The target state.
    public var to: SessionPhase {
        switch self {
        case .restoreValidated, .refreshSucceeded, .refreshDeferred, .signInSucceeded: .authenticated
        case .restoreFailed, .refreshRejected, .signOut, .signOutDuringRefresh, .signInFailed, .restoreSignOut, .signInCancelled: .signedOut
        case .refreshStarted: .refreshing
        case .signInStarted, .accountSwitch, .switchDuringRefresh: .signingIn
        }
    }

    /// The event that triggers it.
    public var event: SessionEventName {
        switch self {
        case .restoreValidated: .sessionValidated
        case .restoreFailed: .restoreRejected
        case .refreshStarted: .accessTokenRejected
        case .refreshSucceeded: .refreshSucceeded
        case .refreshDeferred: .refreshFailedRetryable
        case .refreshRejected: .refreshRejected
        case .signOut, .signOutDuringRefresh, .restoreSignOut, .signInCancelled: .signOut
        case .signInStarted: .signIn
        case .signInSucceeded: .signInSucceeded
        case .signInFailed: .signInFailed
        case .accountSwitch, .switchDuringRefresh: .switchAccount
        }
    }

    /// Whether it increments the session generation.
    public var generationEffect: GenerationEffect {
        switch self {
        case .restoreFailed, .refreshRejected, .signOut, .signOutDuringRefresh, .signInSucceeded, .accountSwitch,
             .restoreSignOut, .switchDuringRefresh, .signInCancelled: .increment
        case .restoreValidated, .refreshStarted, .refreshSucceeded, .refreshDeferred, .signInStarted, .signInFailed: .keep
        }
    }

    public var description: String { rawValue }
}

/// The events of `Specs/state-machine.yaml`.
public enum SessionEventName: String, Sendable, Hashable, CaseIterable, Codable {
    case sessionValidated, restoreRejected, accessTokenRejected, refreshSucceeded, refreshFailedRetryable
    case refreshRejected, signOut, signIn, signInSucceeded, signInFailed, switchAccount
}
