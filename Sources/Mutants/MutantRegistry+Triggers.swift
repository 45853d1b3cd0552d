import SessionKit

/// SessionKit defects only a refresh the clock started shows, and only when the process dies in it: refresh triggers
/// (a case's `triggers`, played as `base[expiry]`) made them catchable, since until then every case killed a refresh
/// that a 401 had started.
extension MutantRegistry {
    static let triggered: [Mutant] = [
        sessionKit(.expiryRefreshStagedPairLost,
                   "a refresh the clock started stages the new pair under a second key before swapping it into the record; no launch reads the staged key, so a kill in between restores the rotated refresh token",
                   violates: "001: Persist the new refresh token before resolving the promise; a crash or kill between receiving and storing it leaves the device holding a revoked token.",
                   expected: ["PROCESS-DEATH-SAFE", "ROTATION-OLD-TOKEN-NEVER-REUSED"]),
    ]
}
