/// One deliberate defect of the kind a real app has, for the suite's known-bad variants
/// (docs/known-bad.md). Package access only: the public API has no way to ask for a broken client.
///
/// Each case is wired as one small, commented branch at the place the real bug would live, marked
/// `// DEFECT <raw value>:`. With `SessionConfiguration.defects` empty (the default) SessionKit is the
/// reference and none of those branches is taken.
package enum SessionKitDefect: String, Sendable, Hashable, CaseIterable {
    /// Each request that gets a 401 starts a refresh of its own instead of joining the one in flight.
    case refreshPerRequest = "refresh-per-request"
    /// Any refresh failure (timeout, 5xx, offline) clears the session, as an explicit rejection would.
    case signOutOnAnyRefreshFailure = "sign-out-on-any-refresh-failure"
    /// Launch enters authenticated because a token is stored, without asking the server.
    case trustStoredToken = "trust-stored-token"
    /// Responses are not checked against the session generation: A's late response reaches B's screen.
    case noGenerationCheckOnResponses = "no-generation-check-on-responses"
    /// A refresh result that arrives after its session ended is still written to storage.
    case noGenerationCheckOnRefreshResult = "no-generation-check-on-refresh-result"
    /// The content cache is keyed by the request path alone, not by account.
    case cacheKeyedByPath = "cache-keyed-by-path"
    /// The shared refresh is resolved (waiters retry with the new token) before the new pair is written.
    case persistAfterResolving = "persist-after-resolving"
    /// The refresh response, access token included, is written to the log.
    case tokenInLog = "token-in-log"
    /// Tokens are stored with the Keychain default, when-unlocked, though background refresh needs them.
    case whenUnlockedTokens = "when-unlocked-tokens"
    /// A request refused again after its retry refreshes and retries again, without limit.
    case unlimitedRetries = "unlimited-retries"
    /// The refresh call goes through the authenticated client: it carries the access token, and its
    /// 401 handling answers a refused refresh by refreshing again.
    case refreshThrough401Handler = "refresh-through-401-handler"
    /// Sign-out clears storage but leaves requests in flight running until their responses arrive.
    case signOutLeavesRequestsInFlight = "sign-out-leaves-requests-in-flight"
    /// Every screen whose request fails because the session ended opens its own sign-in prompt.
    case promptPerScreen = "prompt-per-screen"
    /// The rotated refresh token in a refresh response is ignored; the old one is sent again next time.
    case reuseRotatedRefreshToken = "reuse-rotated-refresh-token"
    /// Sign-in input goes to the server without local validation.
    case noInputValidation = "no-input-validation"
    /// A revocation that cannot reach the server (offline) is dropped instead of queued for later.
    case forgetOfflineRevocation = "forget-offline-revocation"
    /// Unreadable (locked) secure storage at launch is read as "no stored session": signed out.
    case signOutOnLockedStorage = "sign-out-on-locked-storage"
    /// A 401 for an older access token than the current one starts a refresh instead of retrying with
    /// the current token.
    case noLatestTokenCheck = "no-latest-token-check"
    /// A session end is told (signedOut) before it reaches storage, with no durable note of it: a process killed
    /// in between, or a clear that fails, comes back signed in to the ended session after a restart.
    case endToldBeforeDurable = "end-told-before-durable"
    /// Any cached resource is shown while restoring, not only what the declared offline policy allows.
    case cacheShownWhileRestoring = "cache-shown-while-restoring"

    // Found by exploration (docs/exploration.md): every hand-written case of the time passed each of these.

    /// A session end whose secure-storage write failed is forgotten: the next write of the record (a refresh,
    /// a sign-in, revocation bookkeeping) writes the ended session back.
    case failedEndForgotten = "failed-end-forgotten"
    /// Restoring, a fresh access token refused by `GET /me` is answered by refreshing again at once, as often as
    /// it is refused, instead of once per attempt.
    case restoreRefreshesAgainAtOnce = "restore-refreshes-again-at-once"
    /// A refresh that failed for a retryable reason is retried at a fixed interval (6 s) that never grows.
    case fixedIntervalBackoff = "fixed-interval-backoff"
    /// A launch that met locked secure storage distrusts what it reads once storage opens: it wipes the stored
    /// session and signs out.
    case lockedReadWipesSession = "locked-read-wipes-session"
    /// Finishing at launch a session end a killed process left unfinished drops the credentials but keeps the
    /// ended session's cached content.
    case interruptedEndKeepsCache = "interrupted-end-keeps-cache"
    /// A request refused again after its retry waits a moment and then refreshes and retries again, without limit.
    case pacedUnlimitedRetries = "paced-unlimited-retries"
    /// An account switch ends the previous session with no durable note of the end (sign-out keeps writing
    /// one): when the clear fails and the process dies, the next launch restores the session the switch ended.
    case switchEndNotDurable = "switch-end-not-durable"
    /// A sign-in writes a fresh record: the revocations of ended sessions still queued (offline) are dropped.
    case signInDropsRevocationQueue = "sign-in-drops-revocation-queue"
    /// Restoring, when the refreshed pair cannot be stored, the session is validated with it all the same.
    case restoreUsesUnstoredPair = "restore-uses-unstored-pair"
    /// No per-request deadline: a request the server never answers leaves its callers, and every request
    /// waiting for the refresh it belongs to, waiting forever.
    case noRequestDeadline = "no-request-deadline"

    // Found by defects written apart from the cases (issue #36): every case of the time passed each of these.

    /// Restoring, an access token `GET /me` refuses (401 invalid_token) ends the session at once: the stored
    /// refresh token, still valid, is never tried.
    case restoreSignsOutOnRefusedToken = "restore-signs-out-on-refused-token"
    /// A refresh that failed for a retryable reason is remembered as the refresh's result: every later request
    /// fails at once with that error, so the session never recovers once the outage ends (a failed refresh task,
    /// or an `isRefreshing` flag, that is never reset).
    case failedRefreshSticks = "failed-refresh-sticks"
    /// A refresh that failed for a retryable reason is given up at once: no backoff is kept, so the next request
    /// refused with a 401 sends the refresh again at once, however recently it failed.
    case noBackoffAfterRetryableFailure = "no-backoff-after-retryable-failure"
    /// No refresh token of an ended session is ever revoked: sign-out and switch only forget it on the device.
    case neverRevokes = "never-revokes"
    /// A sign-in that fails after its request went out (the login refused 5xx or offline, the new pair not stored)
    /// throws to the form but never reports the failure: the client stays `signingIn`.
    case failedSignInStaysSigningIn = "failed-sign-in-stays-signing-in"
    /// Sign-in input validation checks for an `@` with something before it, not for a domain after it
    /// (`alice@` goes to the server).
    case addressDomainNotChecked = "address-domain-not-checked"
    /// A request refused with a 401 while a refresh is in flight waits for it, then obtains credentials by a login of
    /// its own, with the password kept in memory since the sign-in (a library's password grant per waiter).
    case loginPerWaiter = "login-per-waiter"

    // Made catchable by refresh triggers: cases that kill a refresh the clock started (`base[expiry]`).

    /// A refresh started because the access token was due by the clock stages the new pair under a second
    /// secure-storage key before it swaps it into the record; no launch reads the staged key, so a process killed
    /// after staging restores the pair whose refresh token the server rotated. A refresh started by a 401 writes
    /// the record at once.
    case expiryRefreshStagedPairLost = "expiry-refresh-staged-pair-lost"

    // Clock skew (docs/known-bad.md): what a device clock that jumps does to a client that reads it.

    /// The access token's expiry is the server's time of issue (the token response's `Date`, as a JWT's `iat`)
    /// plus `expires_in`, read against the device's wall clock: with the clock far ahead, every new token looks
    /// expired at once, so every request refreshes first.
    case proactiveRefreshStormAfterClockJump = "proactive-refresh-storm-after-clock-jump"
    /// Token bookkeeping on the device's wall clock: the access token's expiry, and the latest-token check (a 401
    /// for a request sent before the current token arrived is put down to an older token). A token received
    /// while the clock was ahead looks valid, and newer than every later request, once the clock jumps back: the
    /// server's 401s for it fail the requests and are never refreshed, a dead session.
    case deadSessionAfterClockJumpBack = "dead-session-after-clock-jump-back"

    // Written to prove a row of docs/violation-matrix.md that no other variant proved.

    /// An explicit sign-out leaves the session generation as it was; only the next sign-in moves it.
    case signOutKeepsGeneration = "sign-out-keeps-generation"
    /// A successful sign-in enters authenticated under the generation the sign-in started in.
    case signInKeepsGeneration = "sign-in-keeps-generation"
    /// A "remember me" copy of the refresh token is kept in plain preferences beside the record in secure storage.
    case refreshTokenCopiedToPreferences = "refresh-token-copied-to-preferences"
    /// The sign-in password is kept in plain preferences for a silent sign-in later, until the next sign-in.
    case passwordKeptInPreferences = "password-kept-in-preferences"
    /// A rejected refresh ends the session without moving the session generation.
    case rejectionKeepsGeneration = "rejection-keeps-generation"
    /// An account switch ends the session without moving the generation; the sign-in that completes it does.
    case switchKeepsGeneration = "switch-keeps-generation"
    /// The launch into `restoring` is not recorded: the app records the state machine's transitions only, and the
    /// launch is not one of them.
    case launchNotRecorded = "launch-not-recorded"
    /// A preference flag, set before a sign-in's pair is stored and never cleared, decides the launch: without it
    /// the launch ends signed out at once, without reading secure storage (a first-run flag kept in UserDefaults).
    case launchTrustsSessionHint = "launch-trusts-session-hint"
    /// The access token is mirrored in plain preferences whenever the record is written (for a widget to read), and
    /// a launch prefetches the widget's news with that copy before it reads secure storage.
    case restorePrefetchesWithMirroredToken = "restore-prefetches-with-mirrored-token"
    /// The app shows its offline cache while restoring as the reference does, but its hello declares no offline
    /// policy (no `offline-browsing` capability, no resources). SessionKit ignores it; the hosted client's identity
    /// carries it.
    case offlinePolicyUndeclared = "offline-policy-undeclared"
}
