/// The session state machine of `Specs/state-machine.yaml`, as a value with no effects.
///
/// The client actor asks it what to do; it answers with actions (transitions to emit, waiters to resume,
/// refreshes to start) and the client performs them. Every method switches on the private state; every
/// transition goes through `fire`, which checks the source state and applies the generation effect.
struct SessionStateMachine: Sendable {
    private struct Active: Sendable {
        var account: AccountID
        var sessionID: String
        var credentials: Credentials
    }

    /// The single refresh of the account: in flight (`refreshing`) or waiting out a backoff (`authenticated`).
    private struct RefreshOperation: Sendable {
        let id: UInt64
        var failedAttempts = 0
        var waiters = WaiterList<Admission>()
        /// A new pair received but not yet written; it replaces the rotated one once persisted.
        var unpersisted: Credentials?
        /// The last attempt timed out on the client's deadline and its reply may still come: no other refresh of
        /// the token is sent meanwhile (the server may have rotated it), and callers get the timeout at once.
        var awaitingLateReply = false

        /// The error for a caller that would wait on an attempt whose reply is overdue.
        static let overdue = SessionError(.refreshUnavailable, failureClass: .timeout, context: "the refresh is overdue; the session is kept")
    }

    private struct Restoring: Sendable {
        var launched = false
        var stored: StoredSession?
        var lastFailure: FailureClass?
        var waiters = WaiterList<Admission>()
        var settleWaiters = WaiterList<SessionSnapshot>()
    }

    private enum State: Sendable {
        case restoring(Restoring)
        case authenticated(Active, backoff: RefreshOperation?)
        case refreshing(Active, RefreshOperation)
        case signingIn(generation: SessionGeneration)
        case signedOut
    }

    private var state: State = .restoring(Restoring())
    private let generations: GenerationCounter
    private var nextOperationID: UInt64 = 1
    /// The known-bad variant's defects (docs/known-bad.md); empty for the reference.
    private let defects: Set<SessionKitDefect>

    init(generations: GenerationCounter, defects: Set<SessionKitDefect> = []) {
        self.generations = generations
        self.defects = defects
    }

    // MARK: - Observation

    var snapshot: SessionSnapshot {
        switch state {
        case .restoring(let restoring): SessionSnapshot(phase: .restoring, account: restoring.stored?.account, generation: generations.current)
        case .authenticated(let active, _): SessionSnapshot(phase: .authenticated, account: active.account, generation: generations.current)
        case .refreshing(let active, _): SessionSnapshot(phase: .refreshing, account: active.account, generation: generations.current)
        case .signingIn: SessionSnapshot(phase: .signingIn, account: nil, generation: generations.current)
        case .signedOut: SessionSnapshot(phase: .signedOut, account: nil, generation: generations.current)
        }
    }

    /// Whether a response for `ticket` may still update storage, cache or UI.
    func isCurrent(_ ticket: RequestTicket) -> Bool {
        // DEFECT no-generation-check-on-responses: nothing compares the response's session with the
        // current one; any response that arrives while some session is active is taken.
        if defects.contains(.noGenerationCheckOnResponses) {
            switch state {
            case .authenticated, .refreshing: return true
            case .restoring, .signingIn, .signedOut: return false
            }
        }
        guard ticket.generation == generations.current else { return false }
        switch state {
        case .authenticated(let active, _), .refreshing(let active, _): return active.account == ticket.account
        case .restoring, .signingIn, .signedOut: return false
        }
    }

    // MARK: - Launch and restore

    mutating func launch() -> LaunchDecision {
        switch state {
        case .restoring(var restoring):
            guard !restoring.launched else { return .awaitSettle }
            restoring.launched = true
            state = .restoring(restoring)
            return .startRestore(generations.current)
        case .authenticated, .refreshing, .signingIn, .signedOut:
            return .awaitSettle
        }
    }

    /// Queues a launch caller until restoring ends; returns the waiter when it can be resumed now.
    mutating func addSettleWaiter(_ waiter: Waiter<SessionSnapshot>) -> Waiter<SessionSnapshot>? {
        switch state {
        case .restoring(var restoring):
            restoring.settleWaiters.append(waiter)
            state = .restoring(restoring)
            return nil
        case .authenticated, .refreshing, .signingIn, .signedOut:
            return waiter
        }
    }

    func isRestoring(_ generation: SessionGeneration) -> Bool {
        switch state {
        case .restoring: generations.current == generation
        case .authenticated, .refreshing, .signingIn, .signedOut: false
        }
    }

    /// The account being restored, once storage named it, for the offline policy.
    func restoringAccount() -> (AccountID, SessionGeneration)? {
        switch state {
        case .restoring(let restoring): restoring.stored.map { ($0.account, generations.current) }
        case .authenticated, .refreshing, .signingIn, .signedOut: nil
        }
    }

    /// Why restoring has not finished yet (locked storage, offline), if it stalled.
    func restoreStall() -> FailureClass? {
        switch state {
        case .restoring(let restoring): restoring.lastFailure
        case .authenticated, .refreshing, .signingIn, .signedOut: nil
        }
    }

    mutating func restoreStalled(_ failure: FailureClass, generation: SessionGeneration) {
        switch state {
        case .restoring(var restoring) where generations.current == generation:
            restoring.lastFailure = failure
            state = .restoring(restoring)
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            break
        }
    }

    /// Storage named the account (and, after a refresh during restore, the new pair).
    mutating func restoreFound(_ stored: StoredSession, generation: SessionGeneration) {
        switch state {
        case .restoring(var restoring) where generations.current == generation:
            restoring.stored = stored
            state = .restoring(restoring)
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            break
        }
    }

    mutating func restoreValidated(_ stored: StoredSession, credentials: Credentials, generation: SessionGeneration) -> RestoreValidated? {
        switch state {
        case .restoring(var restoring) where generations.current == generation:
            let transition = fire(.restoreValidated, account: stored.account, reason: .storedSessionValidated)
            let active = Active(account: stored.account, sessionID: stored.sessionID, credentials: credentials)
            state = .authenticated(active, backoff: nil)
            return RestoreValidated(
                transition: transition,
                waiters: restoring.waiters.removeAll(),
                ticket: ticket(for: active),
                settleWaiters: restoring.settleWaiters.removeAll(),
                snapshot: snapshot
            )
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    /// Restore ends signed out. `revoke` also queues the stored refresh token for revocation.
    mutating func restoreFailed(reason: TransitionReason, failure: FailureClass?, revoke: Bool, generation: SessionGeneration) -> EndedSession? {
        switch state {
        case .restoring(var restoring) where generations.current == generation:
            let stored = restoring.stored
            let id: SessionTransitionID = reason == .signOutRequested ? .restoreSignOut : .restoreFailed
            let transition = fire(id, account: stored?.account, reason: reason, failure: failure)
            state = .signedOut
            let prompt: SignInPromptReason = switch reason {
            case .noStoredSession: .noStoredSession
            case .signOutRequested: .signedOut
            default: .sessionRejected
            }
            return EndedSession(
                transitions: [transition],
                account: stored?.account,
                sessionID: stored?.sessionID,
                revoke: revoke ? stored?.refreshToken : nil,
                waiters: restoring.waiters.removeAll(),
                settleWaiters: restoring.settleWaiters.removeAll(),
                error: SessionError(.sessionEnded, failureClass: failure, context: "restore ended: \(reason.rawValue)"),
                prompt: prompt,
                snapshot: snapshot
            )
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    // MARK: - Requests

    /// Admits a new request: a ticket now, or a wait for the restore or the refresh.
    mutating func requestAdmission(_ waiter: Waiter<Admission>, now: MonotonicInstant) -> AdmissionAction {
        switch state {
        case .restoring(var restoring):
            guard restoring.launched else { return .resume(waiter, .failure(SessionError(.notLaunched, context: "call launch() first"))) }
            releaseStateCopy()
            restoring.waiters.append(waiter)
            state = .restoring(restoring)
            return .queued
        case .authenticated(let active, var backoff):
            guard active.credentials.needsRefresh(at: now) else { return .resume(waiter, .success(ticket(for: active, admittedAt: now))) }
            if backoff?.awaitingLateReply == true { return .resume(waiter, .failure(RefreshOperation.overdue)) }
            if backoff != nil {
                releaseStateCopy()
                backoff!.waiters.append(waiter)
                state = .authenticated(active, backoff: backoff)
                return .queued
            }
            return .queuedStartingRefresh(startRefresh(active, waiter: waiter, reason: .accessTokenExpiring))
        case .refreshing(let active, var operation):
            releaseStateCopy()
            operation.waiters.append(waiter)
            state = .refreshing(active, operation)
            return .queued
        case .signingIn, .signedOut:
            return .resume(waiter, .failure(SessionError(.notAuthenticated, context: "no session")))
        }
    }

    /// A request sent with `ticket` got 401. Retries with a newer token without refreshing when there is
    /// one; otherwise joins (or starts) the account's single refresh.
    mutating func unauthorized(_ ticket: RequestTicket, waiter: Waiter<Admission>) -> AdmissionAction {
        guard ticket.generation == generations.current else {
            return .resume(waiter, .failure(SessionError(.sessionChanged, context: "response of an older session discarded")))
        }
        switch state {
        case .authenticated(let active, var backoff) where active.account == ticket.account:
            // DEFECT no-latest-token-check: without it, a 401 for an access token already replaced starts
            // another refresh instead of retrying with the current token.
            if active.credentials.version != ticket.credentialVersion, !defects.contains(.noLatestTokenCheck) {
                return .resume(waiter, .success(self.ticket(for: active)))
            }
            // DEFECT dead-session-after-clock-jump-back: a request admitted, by the wall clock, before the current token
            // arrived is taken to have been refused for an older token, whatever it carried: the 401 is the caller's,
            // and no refresh starts.
            if defects.contains(.deadSessionAfterClockJumpBack),
               ticket.admittedAt.flatMap({ admitted in active.credentials.receivedAt.map { admitted < $0 } }) == true {
                return .resume(waiter, .failure(SessionError(.unauthorized, context: "refused for a token already replaced")))
            }
            if backoff?.awaitingLateReply == true { return .resume(waiter, .failure(RefreshOperation.overdue)) }
            if backoff != nil {
                releaseStateCopy()
                backoff!.waiters.append(waiter)
                state = .authenticated(active, backoff: backoff)
                return .queued
            }
            return .queuedStartingRefresh(startRefresh(active, waiter: waiter, reason: .accessTokenRejected))
        case .refreshing(let active, var operation) where active.account == ticket.account:
            if defects.contains(.refreshPerRequest) {
                // DEFECT refresh-per-request: this 401 refreshes on its own instead of awaiting the refresh in
                // flight; the newest refresh takes over the waiters, and the older ones' results are dropped.
                return takeOverRefresh(active, operation, adding: waiter, byLogin: false)
            }
            releaseStateCopy()
            operation.waiters.append(waiter)
            state = .refreshing(active, operation)
            return .queued
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return .resume(waiter, .failure(SessionError(.sessionChanged, context: "session changed")))
        }
    }

    /// DEFECT login-per-waiter: a request that waited on the shared refresh obtains credentials by a login of its own
    /// (as the account's refresh operation, a "refresh" sent as a login); the newest takes over the waiters.
    mutating func loginAfterSharedRefresh(_ waiter: Waiter<Admission>) -> AdmissionAction {
        switch state {
        case .authenticated(let active, nil):
            let start = startRefresh(active, waiter: waiter, reason: .accessTokenRejected)
            return .queuedStartingRefresh(RefreshStart(operationID: start.operationID, transition: start.transition, byLogin: true))
        case .refreshing(let active, let operation):
            return takeOverRefresh(active, operation, adding: waiter, byLogin: true)
        case .restoring, .authenticated, .signingIn, .signedOut:
            return .resume(waiter, .failure(SessionError(.sessionChanged, context: "session changed")))
        }
    }

    /// The refresh-per-request and login-per-waiter defects: a new operation of the account's refresh takes over
    /// the waiters of the one in flight, whose result is then dropped.
    private mutating func takeOverRefresh(_ active: Active, _ operation: RefreshOperation, adding waiter: Waiter<Admission>,
                                          byLogin: Bool) -> AdmissionAction {
        var own = RefreshOperation(id: nextOperationID)
        nextOperationID += 1
        own.waiters = operation.waiters
        own.waiters.append(waiter)
        state = .refreshing(active, own)
        return .queuedStartingRefresh(RefreshStart(operationID: own.id, transition: nil, byLogin: byLogin))
    }

    /// Whether background work needs a refresh now; `nil` when it does. Never signs out: a stalled
    /// restore defers.
    func backgroundRefreshNeed(now: MonotonicInstant, window: Duration) -> BackgroundRefreshResult? {
        switch state {
        case .restoring(let restoring): .deferred(restoring.lastFailure ?? .storageLocked)
        case .authenticated(let active, let backoff): backoff != nil || active.credentials.needsBackgroundRefresh(at: now, window: window) ? nil : .notNeeded
        case .refreshing: nil
        case .signingIn, .signedOut: .notSignedIn
        }
    }

    /// Joins or starts the account's single refresh for background work.
    mutating func backgroundRefresh(_ waiter: Waiter<Admission>) -> AdmissionAction {
        switch state {
        case .authenticated(let active, var backoff):
            if backoff?.awaitingLateReply == true { return .resume(waiter, .failure(RefreshOperation.overdue)) }
            if backoff != nil {
                releaseStateCopy()
                backoff!.waiters.append(waiter)
                state = .authenticated(active, backoff: backoff)
                return .queued
            }
            return .queuedStartingRefresh(startRefresh(active, waiter: waiter, reason: .backgroundRefresh))
        case .refreshing(let active, var operation):
            releaseStateCopy()
            operation.waiters.append(waiter)
            state = .refreshing(active, operation)
            return .queued
        case .restoring(let restoring):
            let error = SessionError(.restoreInProgress, failureClass: restoring.lastFailure ?? .storageLocked, context: "restoring")
            return .resume(waiter, .failure(error))
        case .signingIn, .signedOut:
            return .resume(waiter, .failure(SessionError(.notAuthenticated, context: "no session")))
        }
    }

    /// Removes a cancelled waiter wherever it waits. The shared restore or refresh goes on.
    mutating func cancelAdmissionWaiter(id: UInt64) -> Waiter<Admission>? {
        switch state {
        case .restoring(var restoring):
            let waiter = restoring.waiters.remove(id: id)
            state = .restoring(restoring)
            return waiter
        case .authenticated(let active, var backoff):
            let waiter = backoff?.waiters.remove(id: id)
            state = .authenticated(active, backoff: backoff)
            return waiter
        case .refreshing(let active, var operation):
            let waiter = operation.waiters.remove(id: id)
            state = .refreshing(active, operation)
            return waiter
        case .signingIn, .signedOut:
            return nil
        }
    }

    mutating func cancelSettleWaiter(id: UInt64) -> Waiter<SessionSnapshot>? {
        switch state {
        case .restoring(var restoring):
            let waiter = restoring.settleWaiters.remove(id: id)
            state = .restoring(restoring)
            return waiter
        case .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    // MARK: - Refresh

    /// The operation waiting out a backoff, to wake it early (network back, device unlocked).
    /// The no-backoff-after-retryable-failure defect: forgets the deferred refresh, so nothing holds the next one back.
    mutating func dropBackoff(_ operationID: UInt64) {
        guard case .authenticated(let active, let backoff?) = state, backoff.id == operationID else { return }
        state = .authenticated(active, backoff: nil)
    }

    func backingOffRefresh() -> UInt64? {
        switch state {
        case .authenticated(_, let backoff): backoff?.id
        case .restoring, .refreshing, .signingIn, .signedOut: nil
        }
    }

    mutating func refreshStep(_ operationID: UInt64) -> RefreshStep {
        switch state {
        case .refreshing(let active, let operation) where operation.id == operationID:
            if let pending = operation.unpersisted {
                return .persist(stored(active, pending), generation: generations.current, transition: nil)
            }
            return .send(active.credentials.refreshToken, transition: nil)
        case .authenticated(let active, let backoff?) where backoff.id == operationID:
            let transition = fire(.refreshStarted, account: active.account, reason: .retryAfterBackoff)
            state = .refreshing(active, backoff)
            if let pending = backoff.unpersisted {
                return .persist(stored(active, pending), generation: generations.current, transition: transition)
            }
            return .send(active.credentials.refreshToken, transition: transition)
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return .abandon
        }
    }

    /// A new pair arrived. It is held as unpersisted (the old refresh token is now rotated and never
    /// sent again) until the client has written it.
    mutating func refreshGranted(_ operationID: UInt64, grant: TokenGrant, receivedAt: MonotonicInstant, leeway: Duration) -> GrantDecision {
        switch state {
        case .refreshing(let active, var operation) where operation.id == operationID:
            let credentials = Credentials(
                grant: grant,
                previousRefreshToken: active.credentials.refreshToken,
                version: active.credentials.version + 1,
                receivedAt: receivedAt,
                leeway: leeway
            )
            operation.unpersisted = credentials
            state = .refreshing(active, operation)
            return .persist(stored(active, credentials), generation: generations.current)
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return .abandon
        }
    }

    /// The new pair is in secure storage: only now does anyone get to use it.
    mutating func refreshPersisted(_ operationID: UInt64) -> RefreshResolution? {
        switch state {
        case .refreshing(var active, var operation) where operation.id == operationID:
            guard let credentials = operation.unpersisted else { return nil }
            let transition = fire(.refreshSucceeded, account: active.account, reason: .tokensRotated)
            active.credentials = credentials
            state = .authenticated(active, backoff: nil)
            return RefreshResolution(transition: transition, waiters: operation.waiters.removeAll(), ticket: ticket(for: active))
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    /// A retryable (or unclassified) failure: back to `authenticated`, session kept. A pair that is
    /// received but unwritten is never given up, whatever the attempt count.
    mutating func refreshDeferred(_ operationID: UInt64, failure: FailureClass, policy: BackoffPolicy) -> RefreshDeferral? {
        switch state {
        case .refreshing(let active, var operation) where operation.id == operationID:
            let transition = fire(.refreshDeferred, account: active.account, reason: .retryableFailure, failure: failure)
            operation.failedAttempts += 1
            let waiters = operation.waiters.removeAll()
            let retry = operation.unpersisted != nil || (failure.isRetryable && policy.allowsRetry(after: operation.failedAttempts))
            state = .authenticated(active, backoff: retry ? operation : nil)
            return RefreshDeferral(transition: transition, waiters: waiters, retryAfterFailures: retry ? operation.failedAttempts : nil)
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    /// Marks the deferred operation as waiting (or no longer) for the late reply of its timed-out attempt.
    mutating func refreshAwaitingLateReply(_ operationID: UInt64, _ awaiting: Bool) {
        guard case .authenticated(let active, var backoff?) = state, backoff.id == operationID else { return }
        backoff.awaitingLateReply = awaiting
        state = .authenticated(active, backoff: backoff)
    }

    /// Explicit rejection: one transition ends the session; everything pending is cancelled with it.
    mutating func refreshRejected(_ operationID: UInt64, failure: FailureClass) -> EndedSession? {
        switch state {
        case .refreshing(let active, var operation) where operation.id == operationID:
            let transition = fire(.refreshRejected, account: active.account, reason: .refreshRejected, failure: failure)
            state = .signedOut
            return EndedSession(
                transitions: [transition],
                account: active.account,
                sessionID: active.sessionID,
                revoke: nil,
                waiters: operation.waiters.removeAll(),
                settleWaiters: [],
                error: SessionError(.sessionEnded, failureClass: failure, context: "the server rejected the session"),
                prompt: .sessionRejected,
                snapshot: snapshot
            )
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    // MARK: - Sign-in, switch, sign-out

    mutating func beginSignIn() -> Result<SignInTicket, SessionError> {
        switch state {
        case .signedOut:
            let transition = fire(.signInStarted, account: nil, reason: .userSignIn)
            state = .signingIn(generation: generations.current)
            return .success(SignInTicket(generation: generations.current, transitions: [transition]))
        case .signingIn:
            return .failure(SessionError(.signInInProgress, context: "a sign-in is already in progress"))
        case .authenticated, .refreshing:
            return .failure(SessionError(.alreadySignedIn, context: "use switchAccount to change account"))
        case .restoring:
            return .failure(SessionError(.restoreInProgress, context: "launch is restoring the session"))
        }
    }

    /// Ends the current account's session and enters `signingIn` for the next one.
    mutating func beginAccountSwitch() -> Result<(EndedSession, SignInTicket), SessionError> {
        switch state {
        case .authenticated(let active, let backoff):
            let transition = fire(.accountSwitch, account: active.account, reason: .switchingAccount)
            state = .signingIn(generation: generations.current)
            let ended = endedBySwitch(active, transitions: [transition], revoke: backoff?.unpersisted?.refreshToken ?? active.credentials.refreshToken, waiters: backoff?.waiters)
            return .success((ended, SignInTicket(generation: generations.current, transitions: [])))
        case .refreshing(let active, let operation):
            let transition = fire(.switchDuringRefresh, account: active.account, reason: .switchingAccount)
            state = .signingIn(generation: generations.current)
            let ended = endedBySwitch(active, transitions: [transition], revoke: operation.unpersisted?.refreshToken ?? active.credentials.refreshToken, waiters: operation.waiters)
            return .success((ended, SignInTicket(generation: generations.current, transitions: [])))
        case .signedOut:
            return beginSignIn().map { (EndedSession.none(snapshot), $0) }
        case .signingIn:
            return .failure(SessionError(.signInInProgress, context: "a sign-in is already in progress"))
        case .restoring:
            return .failure(SessionError(.restoreInProgress, context: "launch is restoring the session"))
        }
    }

    func isSigningIn(_ generation: SessionGeneration) -> Bool {
        switch state {
        case .signingIn(let current): current == generation && generations.current == generation
        case .restoring, .authenticated, .refreshing, .signedOut: false
        }
    }

    mutating func signInSucceeded(_ generation: SessionGeneration, session: StoredSession, credentials: Credentials) -> SessionTransition? {
        switch state {
        case .signingIn(let current) where current == generation && generations.current == generation:
            let transition = fire(.signInSucceeded, account: session.account, reason: .credentialsAccepted)
            state = .authenticated(Active(account: session.account, sessionID: session.sessionID, credentials: credentials), backoff: nil)
            return transition
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    mutating func signInFailed(_ generation: SessionGeneration, reason: TransitionReason, failure: FailureClass?) -> SessionTransition? {
        switch state {
        case .signingIn(let current) where current == generation && generations.current == generation:
            let transition = fire(.signInFailed, account: nil, reason: reason, failure: failure)
            state = .signedOut
            return transition
        case .restoring, .authenticated, .refreshing, .signingIn, .signedOut:
            return nil
        }
    }

    /// User sign-out: one transition, at once. `nil` when there is nothing to sign out of yet.
    mutating func signOut() -> EndedSession? {
        switch state {
        case .authenticated(let active, let backoff):
            let transition = fire(.signOut, account: active.account, reason: .userSignedOut)
            state = .signedOut
            return endedBySignOut(active, transition: transition, revoke: backoff?.unpersisted?.refreshToken ?? active.credentials.refreshToken, waiters: backoff?.waiters)
        case .refreshing(let active, let operation):
            let transition = fire(.signOutDuringRefresh, account: active.account, reason: .userSignedOut)
            state = .signedOut
            return endedBySignOut(active, transition: transition, revoke: operation.unpersisted?.refreshToken ?? active.credentials.refreshToken, waiters: operation.waiters)
        case .restoring(let restoring) where restoring.stored != nil:
            return restoreFailed(reason: .signOutRequested, failure: nil, revoke: true, generation: generations.current)
        case .signingIn:
            // The pending sign-in's generation is over: its login result is discarded when it arrives.
            let transition = fire(.signInCancelled, account: nil, reason: .userSignedOut)
            state = .signedOut
            return EndedSession(transitions: [transition], account: nil, sessionID: nil, revoke: nil, waiters: [],
                                settleWaiters: [], error: SessionError(.sessionEnded, context: "signed out"),
                                prompt: .signedOut, snapshot: snapshot)
        case .restoring, .signedOut:
            return nil
        }
    }

    /// The session as it would be stored now; only the defects that act behind the machine's back use it
    /// (a late refresh result written anyway, a refresh sent with the access token).
    func activeSession() -> StoredSession? {
        switch state {
        case .authenticated(let active, _), .refreshing(let active, _): stored(active, active.credentials)
        case .restoring, .signingIn, .signedOut: nil
        }
    }

    // MARK: - Helpers

    private var phase: SessionPhase { snapshot.phase }

    /// DEFECT sign-out-keeps-generation: an explicit sign-out leaves the generation as it was; the next sign-in moves it.
    /// DEFECT sign-in-keeps-generation: a sign-in enters authenticated under the generation it started in.
    /// DEFECT rejection-keeps-generation: a rejected refresh ends the session without moving the generation.
    /// DEFECT switch-keeps-generation: an account switch ends the session without moving the generation; the sign-in
    /// that completes it does.
    private func keepsGeneration(_ id: SessionTransitionID) -> Bool {
        (id == .signOut && defects.contains(.signOutKeepsGeneration))
            || (id == .signInSucceeded && defects.contains(.signInKeepsGeneration))
            || (id == .refreshRejected && defects.contains(.rejectionKeepsGeneration))
            || ([.accountSwitch, .switchDuringRefresh].contains(id) && defects.contains(.switchKeepsGeneration))
    }

    /// The only way a transition happens: checks the source state, applies the generation effect.
    private mutating func fire(_ id: SessionTransitionID, account: AccountID?, reason: TransitionReason, failure: FailureClass? = nil) -> SessionTransition {
        precondition(phase == id.from, "transition \(id) fired in state \(phase)")
        if id.generationEffect == .increment, !keepsGeneration(id) { generations.advance() }
        return SessionTransition(id: id, account: account, generation: generations.current, reason: reason, failureClass: failure)
    }

    /// The payload bound out of `state` shares its storage with `state`, so appending a waiter to it would
    /// copy every waiter already queued: a thousand concurrent 401s would cost a million copies. Dropping
    /// `state`'s reference first makes the append in place; the caller stores the payload back at once.
    private mutating func releaseStateCopy() {
        state = .signedOut
    }

    private mutating func startRefresh(_ active: Active, waiter: Waiter<Admission>, reason: TransitionReason) -> RefreshStart {
        let transition = fire(.refreshStarted, account: active.account, reason: reason)
        var operation = RefreshOperation(id: nextOperationID)
        nextOperationID += 1
        releaseStateCopy()
        operation.waiters.append(waiter)
        state = .refreshing(active, operation)
        return RefreshStart(operationID: operation.id, transition: transition)
    }

    private func ticket(for active: Active, admittedAt: MonotonicInstant? = nil) -> RequestTicket {
        RequestTicket(generation: generations.current, account: active.account, accessToken: active.credentials.accessToken,
                      credentialVersion: active.credentials.version, admittedAt: admittedAt)
    }

    private func stored(_ active: Active, _ credentials: Credentials) -> StoredSession {
        StoredSession(sessionID: active.sessionID, account: active.account, accessToken: credentials.accessToken, refreshToken: credentials.refreshToken)
    }

    private func endedBySignOut(_ active: Active, transition: SessionTransition, revoke: RefreshToken, waiters: WaiterList<Admission>?) -> EndedSession {
        var waiters = waiters ?? WaiterList()
        return EndedSession(
            transitions: [transition], account: active.account, sessionID: active.sessionID, revoke: revoke,
            waiters: waiters.removeAll(), settleWaiters: [],
            error: SessionError(.sessionEnded, context: "signed out"), prompt: .signedOut, snapshot: snapshot
        )
    }

    private func endedBySwitch(_ active: Active, transitions: [SessionTransition], revoke: RefreshToken, waiters: WaiterList<Admission>?) -> EndedSession {
        var waiters = waiters ?? WaiterList()
        return EndedSession(
            transitions: transitions, account: active.account, sessionID: active.sessionID, revoke: revoke,
            waiters: waiters.removeAll(), settleWaiters: [],
            error: SessionError(.sessionEnded, context: "switched account"), prompt: nil, snapshot: snapshot
        )
    }
}

extension EndedSession {
    /// Nothing to end (switching from signed out is a plain sign-in).
    static func none(_ snapshot: SessionSnapshot) -> EndedSession {
        EndedSession(transitions: [], account: nil, sessionID: nil, revoke: nil, waiters: [], settleWaiters: [], error: SessionError(.sessionEnded), prompt: nil, snapshot: snapshot)
    }
}
