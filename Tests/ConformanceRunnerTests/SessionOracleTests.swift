import ConformanceProtocol
import Foundation
@testable import ConformanceRunner
import Testing

@Suite("oracle: transitions-follow-state-machine")
struct TransitionsFollowStateMachineTests {
    static let yaml = Harness.caseFile("""
      - id: sign-in-reports-machine-transitions
        title: Launching and signing in report only transitions of the state machine
        requirements: [SESSION-STATE-MACHINE, RESTORE-EXPLICIT-STATE]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [SESSION-STATE-MACHINE], state: authenticated, transitions: [restore-failed, sign-in-started, sign-in-succeeded] }

    """)

    @Test("a client that moves only through the machine's transitions raises no finding")
    func machineTransitionsPass() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a sign-in that keeps the session generation is charged to SIGNIN-NEW-GENERATION")
    func keptGenerationFails() throws {
        let (outcome, _) = try Harness.runOne(Self.yaml, .init(defects: [.keepsGenerationOnSignIn]))
        let finding = try #require(outcome.findings.first {
            $0.check == "oracle:transitions-follow-state-machine" && $0.requirements == ["SIGNIN-NEW-GENERATION"]
        }, "\(Harness.describe(outcome.findings))")
        #expect(OracleCheck.transition(finding.evidence[0], in: outcome)?.transition == "sign-in-succeeded")
        let named = Oracles.all.first { $0.id == "transitions-follow-state-machine" }?.requirements ?? []
        #expect(named.contains("SIGNIN-NEW-GENERATION") && named.contains("EPOCH-INCREMENT"))
    }
}

@Suite("oracle: no-request-with-ended-session-token")
struct NoRequestWithEndedSessionTokenTests {
    static let yaml = Harness.caseFile("""
      - id: nothing-sent-with-ended-session
        title: After sign-out no request carries the ended session's access token
        requirements: [SIGNOUT-BLOCK-AND-CLEAR]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - request: { resource: inbox }
          - signOut: {}
          - request: { resource: inbox }
          - expect: { for: [SIGNOUT-BLOCK-AND-CLEAR], state: signedOut, results: { failed: 1, codes: { signedOut: 1 } }, revoked: alice }

    """)

    @Test("a client that refuses requests after sign-out without sending them raises no finding")
    func blockedAfterSignOutPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that sends the signed-out session's access token fails SIGNOUT-BLOCK-AND-CLEAR")
    func endedTokenReusedFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .usesTokenAfterSignOut,
                                                        oracle: "no-request-with-ended-session-token",
                                                        requirement: "SIGNOUT-BLOCK-AND-CLEAR")
        let reuse = try #require(findings.first { $0.evidence.count == 2 }, "\(Harness.describe(findings))")
        #expect(OracleCheck.transition(reuse.evidence[0], in: outcome)?.transition == "sign-out")
        let request = try #require(OracleCheck.request(reuse.evidence[1], in: outcome))
        #expect(request.bearerToken.flatMap { outcome.vault.token($0)?.handle } == "at#1")
        #expect(findings.contains { $0.message.contains("while signed out") })
    }
}

@Suite("oracle: stale-refresh-result-discarded")
struct StaleRefreshResultDiscardedTests {
    static let yaml = Harness.caseFile("""
      - id: late-refresh-after-sign-out-discarded
        title: A refresh result that arrives after sign-out is neither stored nor used
        requirements: [EPOCH-DISCARD-STALE-REFRESH]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - hold: { path: /auth/* }
          - request: { resource: inbox }
          - signOut: {}
          - release: { path: /auth/refresh }
          - expect: { for: [EPOCH-DISCARD-STALE-REFRESH], state: signedOut, tokensStored: false, held: 1 }

    """)

    @Test("a client that drops a refresh result arriving after sign-out raises no finding")
    func lateResultDroppedPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that stores a refresh result arriving after sign-out fails EPOCH-DISCARD-STALE-REFRESH")
    func lateResultStoredFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .writesLateRefreshResult,
                                                        oracle: "stale-refresh-result-discarded",
                                                        requirement: "EPOCH-DISCARD-STALE-REFRESH")
        let evidence = try #require(findings.first).evidence
        try #require(evidence.count == 3)
        #expect(OracleCheck.transition(evidence[0], in: outcome)?.transition == "sign-out-during-refresh")
        guard case .storage(_, .set, "session", _, _)? = OracleCheck.received(evidence[2], in: outcome) else {
            Issue.record("evidence #\(evidence[2]) is not the storage write")
            return
        }
        #expect(evidence == evidence.sorted())
    }
}

@Suite("oracle: content-belongs-to-current-account")
struct ContentBelongsToCurrentAccountTests {
    static let yaml = Harness.caseFile("""
      - id: late-response-after-switch-not-shown
        title: Alice's response that arrives after switching to Bob is not shown
        requirements: [EPOCH-DISCARD-STALE-RESPONSES]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - hold: { path: /resources/* }
          - request: { resource: inbox }
          - switchAccount: { account: bob }
          - release: { path: /resources/* }
          - request: { resource: inbox }
          - expect: { for: [EPOCH-DISCARD-STALE-RESPONSES], state: authenticated, shown: [bob], notShown: [alice], results: { codes: { cancelled: 1 } } }

    """)

    @Test("a client that discards the previous account's late response raises no finding")
    func lateResponseDroppedPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that shows alice's late response in bob's session fails EPOCH-DISCARD-STALE-RESPONSES")
    func lateResponseShownFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .showsLateResponseAfterSwitch,
                                                        oracle: "content-belongs-to-current-account",
                                                        requirement: "EPOCH-DISCARD-STALE-RESPONSES",
                                                        alsoBy: ["session-end-ends-pending-requests"])
        let finding = try #require(findings.first)
        #expect(finding.message.contains("alice") && finding.message.contains("bob"))
        // The request whose stale response it used also reported success.
        #expect(outcome.findings.contains { $0.check == "oracle:session-end-ends-pending-requests" && $0.message.contains("got an ok result") })
        #expect(finding.evidence.contains { OracleCheck.transition($0, in: outcome)?.transition == "account-switch" })
        let last = try #require(finding.evidence.last)
        guard case .ui(let shown)? = OracleCheck.received(last, in: outcome) else {
            Issue.record("the last evidence is not the content shown")
            return
        }
        #expect(shown.kind == .content)
    }
}

@Suite("oracle: one-sign-in-prompt-per-sign-out")
struct OneSignInPromptPerSignOutTests {
    static let yaml = Harness.caseFile("""
      - id: one-prompt-when-refresh-rejected
        title: A rejected refresh with two requests waiting shows one sign-in prompt
        requirements: [SIGNIN-PROMPT-ONCE, REFRESH-REJECTION-CANCELS-PENDING]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-PROMPT-ONCE], prompts: 1 }
          - fault: { path: /resources/*, kind: expiredToken, times: 2 }
          - fault: { path: /auth/refresh, kind: invalidGrant }
          - request: { resource: inbox, count: 2 }
          - expect:
              for: [SIGNIN-PROMPT-ONCE]
              state: signedOut
              prompts: 1
              transitions: [refresh-started, refresh-rejected]
              results: { failed: 2, codes: { sessionEnded: 2 } }
              tokensStored: false

    """)

    @Test("a rejected refresh that shows one prompt for all waiting requests raises no finding")
    func onePromptPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that shows one prompt per failed request fails SIGNIN-PROMPT-ONCE, citing both prompts")
    func promptPerRequestFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .promptPerFailedRequest,
                                                        oracle: "one-sign-in-prompt-per-sign-out",
                                                        requirement: "SIGNIN-PROMPT-ONCE")
        let finding = try #require(findings.first)
        #expect(finding.evidence.count == 2)
        for event in finding.evidence {
            guard case .ui(let prompt)? = OracleCheck.received(event, in: outcome), prompt.kind == .signInPrompt else {
                Issue.record("evidence #\(event) is not a sign-in prompt")
                continue
            }
        }
    }
}

@Suite("oracle: only-explicit-rejection-signs-out")
struct OnlyExplicitRejectionSignsOutTests {
    static let serverError = Harness.caseFile("""
      - id: refresh-503-keeps-the-session
        title: A refresh answered 503 is deferred and the session stays
        requirements: [REFRESH-ONLY-REJECTION-SIGNS-OUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - fault: { path: /auth/refresh, kind: serverError }
          - request: { resource: inbox }
          - expect: { for: [REFRESH-ONLY-REJECTION-SIGNS-OUT], state: authenticated, tokensStored: true, results: { codes: { serverError: 1 } } }

    """)

    static let locked = Harness.caseFile("""
      - id: locked-storage-keeps-restoring
        title: Secure storage locked at launch keeps the client restoring until the first unlock
        requirements: [STORAGE-LOCKED-NOT-SIGNOUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [STORAGE-LOCKED-NOT-SIGNOUT], state: authenticated }
          - reboot: {}
          - launch: {}
          - expect: { for: [STORAGE-LOCKED-NOT-SIGNOUT], state: restoring, prompts: 0 }
          - unlock: {}
          - expect: { for: [STORAGE-LOCKED-NOT-SIGNOUT], state: authenticated, requests: [{ path: /me, count: 1 }] }

    """)

    @Test("a client that defers a refresh answered 503 raises no finding")
    func deferredPasses() throws {
        try OracleCheck.passes(Self.serverError)
    }

    @Test("a client that signs out on a refresh 503 fails REFRESH-ONLY-REJECTION-SIGNS-OUT")
    func signOutOn503Fails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.serverError, defect: .signsOutOnServerError,
                                                        oracle: "only-explicit-rejection-signs-out",
                                                        requirement: "REFRESH-ONLY-REJECTION-SIGNS-OUT")
        let evidence = try #require(findings.first).evidence
        #expect(OracleCheck.request(evidence[0], in: outcome)?.path == "/auth/refresh")
        let last = try #require(evidence.last)
        #expect(OracleCheck.transition(last, in: outcome)?.transition == "refresh-rejected")
    }

    @Test("a client that waits for the unlock when storage is locked at launch raises no finding")
    func lockedWaitsPasses() throws {
        try OracleCheck.passes(Self.locked)
    }

    @Test("a client that signs out because storage is locked at launch fails STORAGE-LOCKED-NOT-SIGNOUT")
    func signOutWhenLockedFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.locked, defect: .signsOutWhenLocked,
                                                        oracle: "only-explicit-rejection-signs-out",
                                                        requirement: "STORAGE-LOCKED-NOT-SIGNOUT")
        let evidence = try #require(findings.first?.evidence.last)
        #expect(OracleCheck.transition(evidence, in: outcome)?.transition == "restore-failed")
        #expect(OracleCheck.event(evidence, in: outcome)?.instance == 2)
    }
}

@Suite("oracle: restore-validated-with-server")
struct RestoreValidatedWithServerTests {
    static let yaml = Harness.caseFile("""
      - id: restore-asks-the-server
        title: A stored session is validated with the server before the client is authenticated
        requirements: [RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED], state: authenticated }
          - kill: {}
          - launch: {}
          - expect: { for: [RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED], state: authenticated, requests: [{ path: /me, count: 1 }] }

    """)

    static let throughRefresh = Harness.caseFile("""
      - id: restore-validated-through-refresh
        title: A restore whose access token is refused is validated through a refresh
        requirements: [RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - kill: {}
          - fault: { path: /me, kind: expiredToken }
          - launch: {}
          - expect: { for: [RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED], state: authenticated, requests: [{ path: /auth/refresh, count: 1 }], tokensStored: true }

    """)

    @Test("a client that validates the stored session with GET /me raises no finding")
    func validatedPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client whose restore is validated by a refresh raises no finding")
    func validatedByRefreshPasses() throws {
        try OracleCheck.passes(Self.throughRefresh)
    }

    @Test("a client that goes authenticated because a token is stored fails RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED")
    func trustedTokenFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .trustsStoredToken,
                                                        oracle: "restore-validated-with-server",
                                                        requirement: "RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED")
        let evidence = try #require(findings.first?.evidence.first)
        #expect(OracleCheck.transition(evidence, in: outcome)?.transition == "restore-validated")
        #expect(OracleCheck.event(evidence, in: outcome)?.instance == 2)
    }
}

@Suite("oracle: no-silent-sign-in-after-rejection")
struct NoSilentSignInAfterRejectionTests {
    static let yaml = Harness.caseFile("""
      - id: revoked-stored-session-is-not-signed-in-again
        title: A relaunch whose stored session the server revoked ends; the client does not sign in again on its own
        requirements: [REFRESH-REJECTION-ONE-TRANSITION, RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - kill: {}
          - revoke: { account: alice }
          - launch: {}
          - expect: { for: [REFRESH-REJECTION-ONE-TRANSITION], state: signedOut }

    """)

    @Test("a client that ends the revoked session at launch raises no finding")
    func endedSessionPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that re-runs the password grant after the rejection fails REFRESH-REJECTION-ONE-TRANSITION, and no restore requirement")
    func silentSignInFailsTheRejection() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .signsInAgainAfterRejection,
                                                        oracle: "no-silent-sign-in-after-rejection",
                                                        requirement: "REFRESH-REJECTION-ONE-TRANSITION")
        let login = try #require(findings.first?.evidence.last)
        #expect(OracleCheck.request(login, in: outcome)?.path == "/auth/login")
        #expect(OracleCheck.event(login, in: outcome)?.instance == 2)
        #expect(!outcome.findings.contains { $0.requirements.contains("RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED") },
                "the session came from a login, not from storage: \(Harness.describe(outcome.findings))")
    }

    @Test("the acceptance case launch-with-revoked-session charges a silent sign-in to REFRESH-REJECTION-ONE-TRANSITION only")
    func acceptanceCaseChargesTheRejection() throws {
        let result = try Harness.run(try Harness.realCaseFile("restore.yaml"), .init(defects: [.signsInAgainAfterRejection]))
        let outcome = try #require(result.outcomes.first { $0.caseID == "launch-with-revoked-session" })
        #expect(outcome.status == .fail)
        #expect(Set(outcome.findings.flatMap(\.requirements)) == ["REFRESH-REJECTION-ONE-TRANSITION"],
                "\(Harness.describe(outcome.findings))")
    }
}
