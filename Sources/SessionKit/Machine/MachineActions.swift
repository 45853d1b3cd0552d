/// What the client must do after asking the state machine to admit a request or a background refresh.
enum AdmissionAction: Sendable {
    /// Resume the waiter now.
    case resume(Waiter<Admission>, Admission)
    /// The waiter waits for the restore or the refresh in progress.
    case queued
    /// The waiter waits for a refresh the client must start now; emit the transition first.
    case queuedStartingRefresh(RefreshStart)
}

struct RefreshStart: Sendable {
    let operationID: UInt64
    /// `nil` only for the refresh-per-request and login-per-waiter defects, whose extra refreshes start inside
    /// `refreshing`.
    let transition: SessionTransition?
    /// The login-per-waiter defect: this "refresh" is a login with the remembered password.
    var byLogin = false
}

/// The next step of a refresh operation.
enum RefreshStep: Sendable {
    /// Send the refresh token (emit the transition first, when there is one).
    case send(RefreshToken, transition: SessionTransition?)
    /// A new pair arrived earlier but could not be written: write it, do not send the rotated token again.
    case persist(StoredSession, generation: SessionGeneration, transition: SessionTransition?)
    /// The operation is no longer current (sign-out, switch): stop without effects.
    case abandon
}

enum GrantDecision: Sendable {
    /// Write the new pair as one unit before anyone uses it.
    case persist(StoredSession, generation: SessionGeneration)
    case abandon
}

/// A refresh whose new pair is persisted: resume every waiter with a ticket for it.
struct RefreshResolution: Sendable {
    let transition: SessionTransition
    let waiters: [Waiter<Admission>]
    let ticket: RequestTicket
}

/// A refresh that failed without rejection: the session stays; waiters get a retryable error.
struct RefreshDeferral: Sendable {
    let transition: SessionTransition
    let waiters: [Waiter<Admission>]
    /// Failed attempts so far, when another automatic attempt follows; `nil` when retries are exhausted.
    let retryAfterFailures: Int?
}

/// Restore succeeded: resume request waiters with `ticket` and launch waiters with `snapshot`.
struct RestoreValidated: Sendable {
    let transition: SessionTransition
    let waiters: [Waiter<Admission>]
    let ticket: RequestTicket
    let settleWaiters: [Waiter<SessionSnapshot>]
    let snapshot: SessionSnapshot
}

/// One session-ending transition and everything the client must clear with it.
struct EndedSession: Sendable {
    var transitions: [SessionTransition]
    /// The account whose cache and content must go.
    var account: AccountID?
    /// The stored session to drop from secure storage, if any.
    var sessionID: String?
    /// The refresh token to revoke remotely (sign-out, switch); `nil` after a server rejection.
    var revoke: RefreshToken?
    /// Pending requests, cancelled with `error`.
    var waiters: [Waiter<Admission>]
    var settleWaiters: [Waiter<SessionSnapshot>]
    var error: SessionError
    /// The one sign-in prompt to show, or `nil` when sign-in follows directly (switch).
    var prompt: SignInPromptReason?
    var snapshot: SessionSnapshot
}

/// A sign-in in progress, tagged with the generation it must still be in to commit.
struct SignInTicket: Sendable {
    let generation: SessionGeneration
    let transitions: [SessionTransition]
}

enum LaunchDecision: Sendable {
    case startRestore(SessionGeneration)
    case awaitSettle
}
