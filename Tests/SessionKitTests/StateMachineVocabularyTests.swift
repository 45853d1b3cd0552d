import SessionKit
import Testing

/// The transitions are exactly those of docs/spec-format-contract.md (Specs/state-machine.yaml).
@Suite("State machine vocabulary")
struct StateMachineVocabularyTests {
    @Test("Transition ids, endpoints, events and generation effects match the contract")
    func matchesContract() {
        let contract: [(String, SessionPhase, SessionPhase, String, String)] = [
            ("restore-validated", .restoring, .authenticated, "sessionValidated", "keep"),
            ("restore-failed", .restoring, .signedOut, "restoreRejected", "increment"),
            ("refresh-started", .authenticated, .refreshing, "accessTokenRejected", "keep"),
            ("refresh-succeeded", .refreshing, .authenticated, "refreshSucceeded", "keep"),
            ("refresh-deferred", .refreshing, .authenticated, "refreshFailedRetryable", "keep"),
            ("refresh-rejected", .refreshing, .signedOut, "refreshRejected", "increment"),
            ("sign-out", .authenticated, .signedOut, "signOut", "increment"),
            ("sign-out-during-refresh", .refreshing, .signedOut, "signOut", "increment"),
            ("sign-in-started", .signedOut, .signingIn, "signIn", "keep"),
            ("sign-in-succeeded", .signingIn, .authenticated, "signInSucceeded", "increment"),
            ("sign-in-failed", .signingIn, .signedOut, "signInFailed", "keep"),
            ("account-switch", .authenticated, .signingIn, "switchAccount", "increment"),
            ("restore-sign-out", .restoring, .signedOut, "signOut", "increment"),
            ("switch-during-refresh", .refreshing, .signingIn, "switchAccount", "increment"),
            ("sign-in-cancelled", .signingIn, .signedOut, "signOut", "increment"),
        ]
        #expect(SessionTransitionID.allCases.count == contract.count)
        for (id, from, to, event, effect) in contract {
            let transition = SessionTransitionID(rawValue: id)
            #expect(transition?.from == from, "\(id)")
            #expect(transition?.to == to, "\(id)")
            #expect(transition?.event.rawValue == event, "\(id)")
            #expect(transition?.generationEffect.rawValue == effect, "\(id)")
        }
        #expect(Set(SessionPhase.allCases.map(\.rawValue)) == ["restoring", "authenticated", "refreshing", "signedOut", "signingIn"])
    }
}
