import SessionKit

/// SessionKit defects that clients written apart from the cases had, while every case of the time passed them:
/// defect-injected independent clients, real OAuth libraries, and the survivors of a mutation tool run over the
/// Python example (docs/known-bad.md, "Found apart from the cases"). Each came with the case or oracle that now
/// catches it.
extension MutantRegistry {
    static let independent: [Mutant] = [
        sessionKit(.restoreSignsOutOnRefusedToken,
                   "restoring, an access token GET /me refuses with a 401 invalid_token ends the session: the stored refresh token, still valid, is never tried",
                   violates: "001: Treat only explicit rejections (400 invalid_grant, a revoked session) as logout.",
                   expected: ["REFRESH-ONLY-REJECTION-SIGNS-OUT"],
                   alsoFails: [
                       ("PROCESS-DEATH-SAFE", "ends at the next launch a session a killed refresh left behind, whose access token the server no longer accepts"),
                       ("RESTORE-EXPLICIT-STATE", "ends, instead of restoring it, a session whose stored access token expired while the app was closed"),
                       ("ROTATION-OLD-TOKEN-NEVER-REUSED", "ends at the next launch the session a rotation left with a refused access token, so the rotated pair is never used"),
                   ]),
        sessionKit(.failedRefreshSticks,
                   "a refresh that failed for a retryable reason stays the refresh's result: every later request fails at once with it, and the session never recovers once the outage ends",
                   violates: "001: Timeouts, 5xx and offline are retryable; keep the session and back off.",
                   expected: ["REFRESH-RETRYABLE-BACKOFF"]),
        sessionKit(.noBackoffAfterRetryableFailure,
                   "a refresh that failed for a retryable reason is given up at once: the next request refused with a 401 sends it again at once",
                   violates: "001: Timeouts, 5xx and offline are retryable; keep the session and back off.",
                   expected: ["REFRESH-RETRYABLE-BACKOFF"]),
        sessionKit(.neverRevokes,
                   "no refresh token of an ended session is ever revoked: sign-out and switch only forget it on the device",
                   violates: "000: If the device is offline, remote revocation may need a later retry, but the UI must already behave as signed out.",
                   expected: ["SIGNOUT-REVOCATION-RETRY"]),
        sessionKit(.failedSignInStaysSigningIn,
                   "a sign-in that fails after its login went out (5xx, offline, the pair not stored) is told to the form, never to the session: the client stays signing in",
                   violates: "000: the state diagram: signingIn leaves by sign-in-succeeded or sign-in-failed",
                   expected: ["SESSION-STATE-MACHINE"]),
        sessionKit(.addressDomainNotChecked,
                   "sign-in validation checks for an @ with something before it, not for a domain after it: alice@ goes to the server",
                   violates: "003: 5. Validate user inputs before making API calls",
                   expected: ["SIGNIN-VALIDATE-INPUT"]),
        sessionKit(.loginPerWaiter,
                   "a request refused with a 401 while a refresh is in flight waits for it, then obtains credentials by a login of its own with the password kept since the sign-in: one refresh, then a login per waiter",
                   violates: "000: five failed requests should not each refresh and overwrite one another. Keep one refresh task per account",
                   expected: ["REFRESH-SINGLE-FLIGHT"]),
    ]
}
