import SessionKit

/// SessionKit defects written to prove rows of docs/violation-matrix.md that no other variant proved: each breaks
/// one requirement in the way its row names, and the row's catcher must reject it.
extension MutantRegistry {
    static let matrix: [Mutant] = [
        sessionKit(.signOutKeepsGeneration,
                   "an explicit sign-out leaves the session generation as it was; only the next sign-in moves it",
                   violates: "000: Increment a session epoch on logout or account switch.",
                   expected: ["EPOCH-INCREMENT"],
                   alsoFails: [
                       ("SIGNOUT-BLOCK-AND-CLEAR", "requests in flight at the sign-out still carry the current generation, so they are answered instead of failed; its sign-out is not the state machine's"),
                       ("SIGNOUT-OFFLINE-SIGNED-OUT-UI", "its offline sign-out is not the state machine's sign-out, which moves the generation"),
                   ]),
        sessionKit(.signInKeepsGeneration,
                   "a successful sign-in enters authenticated under the generation the sign-in started in",
                   violates: "000: If A signs out and B signs in immediately, A's late API responses and refresh result must be rejected by a session-generation check.",
                   expected: ["SIGNIN-NEW-GENERATION"],
                   alsoFails: [
                       ("SESSION-STATE-MACHINE", "its sign-in-succeeded is not the state machine's, which moves the generation"),
                   ]),
        sessionKit(.refreshTokenCopiedToPreferences,
                   "a remember-me copy of the refresh token is kept in plain preferences beside the record in secure storage",
                   violates: "000: Never place tokens in logs, deep links, or plaintext files available to other apps.",
                   expected: ["STORAGE-NO-PLAINTEXT-TOKENS", "STORAGE-SECURE-TOKENS"]),
        sessionKit(.passwordKeptInPreferences,
                   "the sign-in password is kept in plain preferences for a silent sign-in later, until the next sign-in replaces it",
                   violates: "000: Never place tokens in logs, deep links, or plaintext files available to other apps.",
                   expected: ["STORAGE-NO-PLAINTEXT-TOKENS"]),
        sessionKit(.rejectionKeepsGeneration,
                   "a rejected refresh ends the session without moving the session generation",
                   violates: "000: Increment a session epoch on logout or account switch.",
                   expected: ["EPOCH-INCREMENT"],
                   alsoFails: [
                       ("REFRESH-REJECTION-ONE-TRANSITION", "its refresh-rejected is not the state machine's, which moves the generation"),
                   ]),
        sessionKit(.switchKeepsGeneration,
                   "an account switch ends the session without moving the session generation; the sign-in that completes it does",
                   violates: "000: Increment a session epoch on logout or account switch.",
                   expected: ["EPOCH-INCREMENT"],
                   alsoFails: [
                       ("SESSION-STATE-MACHINE", "its account-switch is not the state machine's, which moves the generation"),
                   ]),
        sessionKit(.launchNotRecorded,
                   "the launch into restoring is not recorded: the app records the state machine's transitions only",
                   violates: "000: the state diagram: a launch enters restoring",
                   expected: ["RESTORE-EXPLICIT-STATE", "LOG-RECORD-TRANSITIONS"],
                   alsoFails: [
                       ("RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED", "a launch still restoring is in no state it reported, not in restoring"),
                       ("STORAGE-LOCKED-NOT-SIGNOUT", "a launch waiting for the device to unlock is in no state it reported, not in restoring"),
                   ]),
        sessionKit(.launchTrustsSessionHint,
                   "a flag in preferences, set at sign-in and never cleared, decides the launch: without it the launch ends signed out without reading secure storage",
                   violates: "003: 6. Check authentication state on app launch",
                   expected: ["RESTORE-CHECK-ON-LAUNCH"]),
        sessionKit(.restorePrefetchesWithMirroredToken,
                   "the access token is mirrored in plain preferences for a widget, and a launch prefetches the widget's news with that copy before it reads secure storage",
                   violates: "000: Read credentials, establish the local account identity, then validate or refresh the session with the server",
                   expected: ["RESTORE-EXPLICIT-STATE", "STORAGE-NO-PLAINTEXT-TOKENS", "STORAGE-SECURE-TOKENS"]),
        sessionKit(.offlinePolicyUndeclared,
                   "the app shows its cached news while restoring offline, but its hello declares no offline policy (no offline-browsing capability)",
                   violates: "000: If offline browsing is supported, define in advance which cached data may appear before session validation and when sensitive content must be hidden.",
                   expected: ["OFFLINE-POLICY-DECLARED", "RESTORE-NO-PRIVATE-BEFORE-VALIDATION"]),
    ]
}
