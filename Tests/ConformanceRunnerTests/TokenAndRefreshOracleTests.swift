import ConformanceProtocol
@testable import ConformanceRunner
import Testing

// One suite per oracle of Sources/ConformanceRunner/Oracles: each shows the oracle silent on the correct fake
// and failing the fake that carries the matching defect, charged to the oracle's requirement with evidence.

@Suite("password search")
struct PasswordSearchTests {
    @Test("a password form is found in text as UTF-8 bytes: at the start, the end, after a false start, and not when absent")
    func bytesContain() {
        let needle = Array("pa%C3%A9ss".utf8)
        #expect(NoTokenInClientOutput.bytes(of: "pa%C3%A9ss at the start", contain: needle))
        #expect(NoTokenInClientOutput.bytes(of: "at the end pa%C3%A9ss", contain: needle))
        #expect(NoTokenInClientOutput.bytes(of: "papa%C3%A9ss", contain: needle))
        #expect(!NoTokenInClientOutput.bytes(of: "pa%C3%A9s", contain: needle))
        #expect(!NoTokenInClientOutput.bytes(of: "", contain: needle))
        #expect(NoTokenInClientOutput.bytes(of: "mot de passe é", contain: Array("passe é".utf8)))
    }
}

@Suite("oracle: single-refresh-in-flight")
struct SingleRefreshInFlightTests {
    static let yaml = Harness.caseFile("""
      - id: concurrent-401s-share-one-refresh
        title: Two requests refused at once share one refresh
        requirements: [REFRESH-SINGLE-FLIGHT]
        steps:
          - configure: { reuseInterval: 600 }
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken, times: 2 }
          - request: { resource: inbox, count: 2 }
          - expect: { for: [REFRESH-SINGLE-FLIGHT], results: { ok: 4 }, requests: [{ path: /auth/refresh, count: 1 }] }

    """)

    @Test("two 401s that wait for one shared refresh raise no finding")
    func sharedRefreshPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that refreshes once per 401 fails REFRESH-SINGLE-FLIGHT, citing both refresh calls")
    func refreshPerRequestFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .refreshPerRequest,
                                                        oracle: "single-refresh-in-flight", requirement: "REFRESH-SINGLE-FLIGHT")
        let evidence = try #require(findings.first).evidence
        #expect(evidence.count == 2)
        #expect(evidence.allSatisfy { OracleCheck.request($0, in: outcome)?.path == "/auth/refresh" })
    }

    @Test("a refresh of a session that ended while it hung does not count against the next session's refresh")
    func abandonedRefreshIsNotInFlight() throws {
        let yaml = Harness.caseFile("""
          - id: refresh-after-sign-in-again
            title: Sign out while a refresh hangs, sign in again, and refresh the new session
            requirements: [REFRESH-SINGLE-FLIGHT]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - fault: { path: /resources/*, kind: expiredToken }
              - hold: { path: /auth/refresh }
              - request: { resource: inbox }
              - signOut: {}
              - signIn: { account: alice }
              - fault: { path: /resources/*, kind: expiredToken }
              - request: { resource: inbox }
              - release: { path: /auth/refresh }
              - expect: { for: [REFRESH-SINGLE-FLIGHT], state: authenticated, shown: [alice], tokensStored: true }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        let singleFlight = outcome.findings.filter { $0.check == "oracle:single-refresh-in-flight" }
        #expect(outcome.findings.allSatisfy { $0.check == "oracle:single-refresh-in-flight" },
                "\(Harness.describe(outcome.findings))")
        #expect(singleFlight.isEmpty, "\(Harness.describe(singleFlight))")
    }
}

@Suite("oracle: no-token-in-client-output")
struct NoTokenInClientOutputTests {
    static let yaml = Harness.caseFile("""
      - id: tokens-stay-out-of-output
        title: Signing in and refreshing leaks no token into logs, events or preferences
        requirements: [LOG-NO-TOKEN-VALUES, STORAGE-NO-PLAINTEXT-TOKENS]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [LOG-NO-TOKEN-VALUES], results: { ok: 3 }, tokensStored: true }

    """)

    @Test("a client that keeps tokens in secure storage only, out of its logs, raises no finding")
    func cleanOutputPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that logs its access token fails LOG-NO-TOKEN-VALUES, citing the log line")
    func loggedTokenFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .logsToken, oracle: "no-token-in-client-output",
                                                        requirement: "LOG-NO-TOKEN-VALUES")
        let evidence = try #require(findings.first?.evidence.first)
        guard case .log? = OracleCheck.received(evidence, in: outcome) else {
            Issue.record("evidence #\(evidence) is not a log line")
            return
        }
        #expect(findings.first?.message.contains("at#1") == true)
    }

    @Test("a client that logs only a fragment of its access token fails LOG-NO-TOKEN-VALUES too")
    func loggedFragmentFails() throws {
        try OracleCheck.fails(Self.yaml, defect: .logsTokenPrefix, oracle: "no-token-in-client-output",
                              requirement: "LOG-NO-TOKEN-VALUES")
    }

    @Test("a client that writes the token pair to preferences fails STORAGE-NO-PLAINTEXT-TOKENS, citing the write")
    func preferencesFail() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .pairInPreferences,
                                                        oracle: "no-token-in-client-output",
                                                        requirement: "STORAGE-NO-PLAINTEXT-TOKENS")
        for finding in findings {
            let evidence = try #require(finding.evidence.first)
            guard case .preferences(_, .set, "session", _)? = OracleCheck.received(evidence, in: outcome) else {
                Issue.record("evidence #\(evidence) is not the preferences write")
                continue
            }
        }
    }

    @Test("a token in preferences is not charged to LOG-NO-TOKEN-VALUES: preferences are not logs")
    func preferencesAreNotLogs() throws {
        let (outcome, _) = try Harness.runOne(Self.yaml, .init(defects: [.pairInPreferences]))
        let logCharges = outcome.findings.filter { $0.requirements.contains("LOG-NO-TOKEN-VALUES") }
        #expect(logCharges.isEmpty, "\(Harness.describe(logCharges))")
    }
}

@Suite("oracle: new-tokens-persisted-before-use")
struct NewTokensPersistedBeforeUseTests {
    static let yaml = Harness.caseFile("""
      - id: refreshed-pair-stored-before-use
        title: The refreshed pair is stored, as one item, before the new access token is sent
        requirements: [REFRESH-PERSIST-BEFORE-USE, STORAGE-ATOMIC-PAIR, STORAGE-SECURE-TOKENS]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [REFRESH-PERSIST-BEFORE-USE], results: { ok: 3 }, tokensStored: true }

    """)

    @Test("a client that stores the pair as one item before using it raises no finding")
    func storeThenUsePasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that retries with the new access token before storing it fails REFRESH-PERSIST-BEFORE-USE")
    func useBeforeStoreFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .usesTokenBeforeStoring,
                                                        oracle: "new-tokens-persisted-before-use",
                                                        requirement: "REFRESH-PERSIST-BEFORE-USE")
        let evidence = try #require(findings.first).evidence
        try #require(evidence.count == 3)
        #expect(OracleCheck.request(evidence[1], in: outcome)?.path == "/resources/inbox")
        guard case .storage(_, .set, "session", _, _)? = OracleCheck.received(evidence[2], in: outcome) else {
            Issue.record("evidence #\(evidence[2]) is not the late storage write")
            return
        }
        #expect(evidence[1] < evidence[2])
    }

    @Test("a client that stores access and refresh token as two items fails STORAGE-ATOMIC-PAIR, citing both writes")
    func splitPairFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .splitsPair,
                                                        oracle: "new-tokens-persisted-before-use",
                                                        requirement: "STORAGE-ATOMIC-PAIR")
        let first = try #require(findings.first)
        // A group (one per split pair stored) starts with its first occurrence's two writes.
        #expect(first.evidence.count == 2 || first.occurrences > 1)
        let evidence = Array(first.evidence.prefix(2))
        var keys: Set<String> = []
        for event in evidence {
            if case .storage(_, .set, let key, _, _)? = OracleCheck.received(event, in: outcome) { keys.insert(key) }
        }
        #expect(keys == ["session.access", "session.refresh"])
    }

    @Test("a sign-in's tokens sent though secure storage refused them fail REFRESH-PERSIST-BEFORE-USE, not STORAGE-SECURE-TOKENS")
    func signInPairUsedUnstoredIsPersistBeforeUse() throws {
        var crafted = CraftedTrace()
        let login = crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                        body: ["email": "alice@example.com", "password": "correct horse battery"]))
        guard case .response(let response) = login, let access = response.body["access_token"]?.string else {
            Issue.record("alice's login failed: \(login)")
            return
        }
        let write = crafted.add(.received(.storage(id: "s1", operation: .set, key: "session", value: response.body.jsonText,
                                                   accessibility: .afterFirstUnlock)))
        crafted.add(.sent(.reply(id: "s1", .error(ProtocolErrorCode.writeFailed.info("the write failed")))))
        let use = crafted.add(.received(.http(id: "e9", cause: "c1", HTTPRequestMessage(
            method: "GET", path: "/me", headers: ["authorization": "Bearer \(access)"]))))
        let findings = try crafted.findings(NewTokensPersistedBeforeUse())
        #expect(findings.map(\.requirements) == [["REFRESH-PERSIST-BEFORE-USE"]], "\(Harness.describe(findings))")
        #expect(findings.first?.message.contains("of a sign-in") == true)
        #expect(findings.first?.evidence.contains(use) == true && findings.first?.evidence.contains(write) == false)
    }
}

@Suite("oracle: rotated-refresh-token-never-sent")
struct RotatedRefreshTokenNeverSentTests {
    static let yaml = Harness.caseFile("""
      - id: rotated-refresh-token-not-reused
        title: After a rotation the next refresh presents the new refresh token
        requirements: [ROTATION-OLD-TOKEN-NEVER-REUSED]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - advance: { seconds: 10 }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [ROTATION-OLD-TOKEN-NEVER-REUSED], state: authenticated, results: { ok: 4 }, requests: [{ path: /auth/refresh, count: 2 }] }

    """)

    @Test("a client that presents each new refresh token once raises no finding")
    func rotationPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that sends the rotated refresh token again fails ROTATION-OLD-TOKEN-NEVER-REUSED")
    func reuseFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .resendsRotatedRefreshToken,
                                                        oracle: "rotated-refresh-token-never-sent",
                                                        requirement: "ROTATION-OLD-TOKEN-NEVER-REUSED")
        let finding = try #require(findings.first)
        let last = try #require(finding.evidence.last)
        let reuse = try #require(OracleCheck.request(last, in: outcome))
        #expect(reuse.path == "/auth/refresh")
        #expect(reuse.body["refresh_token"]?.string.flatMap { outcome.vault.token($0)?.handle } == "rt#1")
        #expect(finding.message.contains("rt#1") && finding.message.contains("rt#2"))
    }
}

@Suite("oracle: request-retried-at-most-once")
struct RequestRetriedAtMostOnceTests {
    static let yaml = Harness.caseFile("""
      - id: refused-retry-not-retried-again
        title: A request refused again after the refresh is not retried a second time
        requirements: [REFRESH-RETRY-ONCE]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken, times: 4 }
          - request: { resource: inbox }
          - expect:
              for: [REFRESH-RETRY-ONCE]
              results: { codes: { sessionExpired: 1 } }
              requests: [{ path: /resources/inbox, count: 2 }, { path: /auth/refresh, count: 1 }]

    """)

    @Test("a client that retries once with the new token, then gives up, raises no finding")
    func retryOncePasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that re-sends a refused request three times fails REFRESH-RETRY-ONCE, citing every send")
    func threeRetriesFail() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .retriesThreeTimes,
                                                        oracle: "request-retried-at-most-once",
                                                        requirement: "REFRESH-RETRY-ONCE")
        let sentFourTimes = try #require(findings.first { $0.evidence.count == 4 }, "\(Harness.describe(findings))")
        #expect(sentFourTimes.evidence.allSatisfy { OracleCheck.request($0, in: outcome)?.path == "/resources/inbox" })
        // The retries after the refreshed one repeat the token that was just refused.
        #expect(findings.contains { $0.message.contains("same access token") && $0.message.contains("at#2") })
    }
}

@Suite("oracle: refresh-bypasses-401-handling")
struct RefreshBypassesUnauthorizedHandlingTests {
    static let yaml = Harness.caseFile("""
      - id: refresh-call-without-bearer
        title: The refresh call carries no Authorization header
        requirements: [REFRESH-NOT-THROUGH-401-HANDLER]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [REFRESH-NOT-THROUGH-401-HANDLER], results: { ok: 3 }, requests: [{ path: /auth/refresh, count: 1 }] }

    """)

    @Test("a refresh call without an Authorization header raises no finding")
    func plainRefreshPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a refresh call sent with an Authorization header fails REFRESH-NOT-THROUGH-401-HANDLER")
    func bearerOnRefreshFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .refreshWithAuthorization,
                                                        oracle: "refresh-bypasses-401-handling",
                                                        requirement: "REFRESH-NOT-THROUGH-401-HANDLER")
        let first = try #require(findings.first?.evidence.first)
        let refresh = try #require(OracleCheck.request(first, in: outcome))
        #expect(refresh.path == "/auth/refresh")
        #expect(refresh.bearerToken != nil)
    }
}

@Suite("oracle: background-tokens-after-first-unlock")
struct BackgroundTokensAfterFirstUnlockTests {
    static let yaml = Harness.caseFile("""
      - id: background-tokens-accessibility
        title: With background refresh declared, tokens are stored afterFirstUnlock
        requirements: [STORAGE-BACKGROUND-ACCESSIBILITY]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [STORAGE-BACKGROUND-ACCESSIBILITY], results: { ok: 3 }, tokensStored: true }

    """)

    @Test("a background-refresh client storing tokens afterFirstUnlock raises no finding")
    func afterFirstUnlockPasses() throws {
        try OracleCheck.passes(Self.yaml, capabilities: ["background-refresh"])
    }

    @Test("a background-refresh client storing tokens whenUnlocked fails STORAGE-BACKGROUND-ACCESSIBILITY")
    func whenUnlockedFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .storesWhenUnlocked,
                                                        oracle: "background-tokens-after-first-unlock",
                                                        requirement: "STORAGE-BACKGROUND-ACCESSIBILITY",
                                                        capabilities: ["background-refresh"])
        #expect(findings.count == 1 && findings.first?.occurrences == 2,
                "one per stored pair, the login's and the refresh's, grouped: \(Harness.describe(findings))")
        for finding in findings {
            guard case .storage(_, .set, _, _, .whenUnlocked?)? = OracleCheck.received(finding.evidence[0], in: outcome) else {
                Issue.record("evidence #\(finding.evidence[0]) is not a whenUnlocked write")
                continue
            }
        }
    }

    @Test("whenUnlocked storage is no finding for a client that does not declare background refresh")
    func silentWithoutCapability() throws {
        let (outcome, result) = try Harness.runOne(Self.yaml, .init(defects: [.storesWhenUnlocked]))
        #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))")
        #expect(Harness.verdict("STORAGE-BACKGROUND-ACCESSIBILITY", in: result)?.status == .skipped)
    }
}

@Suite("oracle: refresh-bypasses-401-handling, after a rejection")
struct RefreshAfterRejectionTests {
    static func refresh(_ token: String) -> HTTPRequestMessage {
        HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(token)])
    }

    /// Alice's refresh is rejected; then (`login`) a login answered with new tokens, the sign-in not finished.
    static func rejected(thenLogin login: Bool) -> (CraftedTrace, old: String, new: String?) {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.world.server.auth.revokeAll(account: "acct-alice")
        crafted.exchange(Self.refresh(tokens.refresh))
        guard login else { return (crafted, tokens.refresh, nil) }
        let outcome = crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                          body: ["email": "carol@example.com", "password": "river lamp violet"]))
        guard case .response(let response) = outcome else { return (crafted, tokens.refresh, nil) }
        return (crafted, tokens.refresh, response.body["refresh_token"]?.string)
    }

    @Test("a refresh with the token of a login answered after the rejection belongs to the new sign-in: no finding")
    func newSignInsRefreshPasses() throws {
        var (crafted, _, new) = Self.rejected(thenLogin: true)
        let token = try #require(new)
        crafted.exchange(Self.refresh(token))
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).isEmpty)
    }

    @Test("another refresh with the rejected session's token fails, a new login in between or not")
    func rejectedTokenAgainFails() throws {
        for login in [false, true] {
            var (crafted, old, _) = Self.rejected(thenLogin: login)
            crafted.exchange(Self.refresh(old))
            let findings = try crafted.findings(RefreshBypassesUnauthorizedHandling())
            #expect(findings.map(\.message) == ["a refused refresh was answered by refreshing the same session again"],
                    "login \(login): \(findings.map(\.message))")
        }
    }

    @Test("a refresh of a session signed in before the rejection arrived (its login answered first) is no retry: no finding")
    func otherSessionsRefreshPasses() throws {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        // Carol's login is answered while Alice's refresh is on its way; no transition tells of the new sign-in yet.
        let outcome = crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                          body: ["email": "carol@example.com", "password": "river lamp violet"]))
        guard case .response(let response) = outcome else {
            Issue.record("carol's login failed: \(outcome)")
            return
        }
        let carol = try #require(response.body["refresh_token"]?.string)
        crafted.world.server.auth.revokeAll(account: "acct-alice")
        crafted.exchange(Self.refresh(alice.refresh))
        crafted.exchange(Self.refresh(carol))
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).isEmpty)
    }

    /// A command's request was refused (401) before a sibling's refresh was rejected; the command's own 401 handling
    /// then refreshes, late (it waited for a lock): no finding. A second refresh of that command, or a refresh of the
    /// command whose refresh was rejected, is a retry of the rejection.
    @Test("a refresh of a command refused with a 401 before the rejection, its first since, is that command's 401 handling",
          arguments: [("c10", [String]()), ("c11", ["a refused refresh was answered by refreshing the same session again"])])
    func ownUnauthorizedExplainsALateRefresh(cause: String, expected: [String]) throws {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.world.server.auth.revokeAll(account: "acct-alice")
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(tokens.access)"]),
                         cause: "c10")
        crafted.exchange(Self.refresh(tokens.refresh), cause: "c11")
        crafted.exchange(Self.refresh(tokens.refresh), cause: cause)
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).map(\.message) == expected)
        // Its second refresh is no first answer to its 401.
        crafted.exchange(Self.refresh(tokens.refresh), cause: cause)
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).map(\.message)
                == ["a refused refresh was answered by refreshing the same session again"])
    }

    /// Seen on a client that took no notice of a rejection during its sign-in: a later background refresh sent the
    /// rejected session's token again. That is a rejected session used again, not a 401 handler's loop.
    @Test("a refresh another command starts after a rejection is no 401 handler's loop: no finding")
    func anotherCommandsRefreshIsNoLoop() throws {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.world.server.auth.revokeAll(account: "acct-alice")
        crafted.exchange(Self.refresh(tokens.refresh), cause: "c11")
        crafted.exchange(Self.refresh(tokens.refresh), cause: "c12")
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).isEmpty)
        crafted.exchange(Self.refresh(tokens.refresh), cause: "c11")
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).map(\.message)
                == ["a refused refresh was answered by refreshing the same session again"])
    }

    @Test("a refresh after another request's 401 answered after the rejection is that request's 401 handling: no finding")
    func siblingUnauthorizedExplainsTheRefresh() throws {
        var (crafted, old, _) = Self.rejected(thenLogin: false)
        let access = try #require(crafted.world.vault.tokens.first { $0.kind == .access }?.value)
        crafted.transition("refresh-rejected", from: "refreshing", to: "signedOut", account: "acct-alice")
        // A request that was on the wire when the session ended comes back 401; a plain session refreshes for it.
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(access)"]),
                         cause: "c3")
        crafted.exchange(Self.refresh(old))
        #expect(try crafted.findings(RefreshBypassesUnauthorizedHandling()).isEmpty)
    }
}
