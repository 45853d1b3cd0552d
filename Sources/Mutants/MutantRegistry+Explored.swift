import SessionKit

/// SessionKit defects that `session-conformance explore` found while every hand-written case passed them
/// (docs/exploration.md). Each is killed by the cases its failures were shrunk to, in Specs/cases/explored.yaml;
/// MutantKillMatrixTests checks that every other case still passes it, so the find stays the explorer's, but for
/// the hand-written cases added since that name it in `laterCases`.
extension MutantRegistry {
    static let explored: [Mutant] = [
        sessionKit(.failedEndForgotten,
                   "a session end whose secure-storage write failed is forgotten: the next write of the record starts from the ended session",
                   violates: "000: On an explicit sign-out, block new authenticated requests and clear sensitive local state immediately",
                   expected: ["SIGNOUT-BLOCK-AND-CLEAR", "CACHE-CLEAR-ON-SWITCH"],
                   shrunkCases: ["sign-out-whose-clear-failed-is-finished-by-the-next-sign-in",
                                 "switch-whose-clear-failed-leaves-nothing-of-the-previous-account"]),
        sessionKit(.restoreRefreshesAgainAtOnce,
                   "restoring, a fresh access token refused by GET /me is refreshed again at once, as often as the server refuses it",
                   violates: "001: retry each original request once with the new access token",
                   expected: ["REFRESH-RETRY-ONCE"], shrunkCases: ["restore-refreshes-once-when-the-fresh-token-is-refused"]),
        sessionKit(.fixedIntervalBackoff,
                   "a refresh that failed for a retryable reason is retried every 6 s, a wait that never grows",
                   violates: "001: Timeouts, 5xx and offline are retryable; keep the session and back off.",
                   expected: ["REFRESH-RETRYABLE-BACKOFF"], shrunkCases: ["refresh-backoff-grows-during-an-outage"],
                   laterCases: ["refresh-backoff-grows-while-the-server-fails"]),
        sessionKit(.signInDropsRevocationQueue,
                   "a sign-in writes a fresh record: the refresh tokens of ended sessions still waiting to be revoked are dropped",
                   violates: "000: If the device is offline, remote revocation may need a later retry",
                   expected: ["SIGNOUT-REVOCATION-RETRY"], shrunkCases: ["switch-keeps-an-offline-revocation-queued"]),
        sessionKit(.restoreUsesUnstoredPair,
                   "restoring, a refreshed pair that could not be stored is used to validate the session all the same",
                   violates: "001: Persist the new refresh token before resolving the promise",
                   expected: ["REFRESH-PERSIST-BEFORE-USE"], shrunkCases: ["restore-never-uses-a-refreshed-pair-it-could-not-store"]),
        sessionKit(.noRequestDeadline,
                   "no deadline on the refresh: a refresh the server never answers keeps every request waiting for it, forever",
                   violates: "001: Timeouts, 5xx and offline are retryable; keep the session and back off.",
                   expected: ["REFRESH-RETRYABLE-BACKOFF"], shrunkCases: ["a-refresh-never-answered-blocks-no-request-forever"]),
    ]
}
