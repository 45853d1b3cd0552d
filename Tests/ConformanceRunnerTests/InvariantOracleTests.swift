import ConformanceProtocol
@testable import ConformanceRunner
import Testing

// One suite per oracle of Sources/ConformanceRunner/Oracles/InvariantOracles.swift: each shows the oracle silent
// on the correct fake and failing the fake that carries the matching defect, charged to the oracle's requirement.

@Suite("oracle: restore-reads-credentials-first")
struct RestoreReadsCredentialsFirstTests {
    static let yaml = Harness.caseFile("""
      - id: relaunch-reads-the-stored-session
        title: A relaunched client reads the stored session before it validates it
        requirements: [RESTORE-EXPLICIT-STATE]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - kill: {}
          - launch: {}
          - expect: { for: [RESTORE-EXPLICIT-STATE], state: authenticated, requests: [{ path: /me, count: 1 }] }

    """)

    @Test("a client that reads secure storage before validating the restored session raises no finding")
    func readFirstPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that validates a session it kept in memory across launches fails RESTORE-EXPLICIT-STATE, and RESTORE-CHECK-ON-LAUNCH")
    func sessionKeptAcrossLaunchesFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .keepsSessionAcrossLaunches,
                                                        oracle: "restore-reads-credentials-first",
                                                        requirement: "RESTORE-EXPLICIT-STATE",
                                                        alsoBreaks: ["launch-checks-stored-session"])
        // It decided the restore without reading storage either.
        #expect(outcome.findings.filter { $0.check == "oracle:launch-checks-stored-session" }.map(\.requirements) == [["RESTORE-CHECK-ON-LAUNCH"]])
        #expect(findings.count == 1, "\(Harness.describe(findings))")
        let evidence = try #require(findings.first?.evidence)
        #expect(evidence.count == 1)
        let request = try #require(OracleCheck.request(evidence[0], in: outcome))
        #expect(request.path == "/me")
        #expect(OracleCheck.event(evidence[0], in: outcome)?.instance == 2)
        #expect(findings.first?.message == "the process sent at#1 before it read secure storage: a restore reads the stored credentials first")
    }
}

@Suite("oracle: stale-401-retried-with-latest-token")
struct StaleUnauthorizedRetriedWithLatestTokenTests {
    /// The slow request carries at#1 and is held while the fast one refreshes to at#2; it is then refused.
    static let yaml = Harness.caseFile("""
      - id: stale-401-retried-with-the-current-token
        title: A request refused for a replaced access token is retried with the current one, without a refresh
        requirements: [REFRESH-USE-LATEST-TOKEN]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - hold: { path: /resources/slow }
          - request: { resource: slow }
          - fault: { path: /resources/fast, kind: expiredToken }
          - request: { resource: fast }
          - require: { results: { ok: 1 }, requests: [{ path: /auth/refresh, count: 1 }, { path: /resources/slow, count: 1 }] }
          - fault: { path: /resources/slow, kind: expiredToken }
          - release: { path: /resources/slow }
          - expect: { for: [REFRESH-USE-LATEST-TOKEN], results: { ok: 1 }, requests: [{ path: /resources/slow, count: 1 }] }

    """)

    @Test("a client that retries a stale 401 with the stored newer token raises no finding")
    func retriedWithLatestPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that refreshes on a 401 for a replaced token fails REFRESH-USE-LATEST-TOKEN, citing the 401 and the refresh")
    func refreshOnStale401Fails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .refreshesOnStale401,
                                                        oracle: "stale-401-retried-with-latest-token",
                                                        requirement: "REFRESH-USE-LATEST-TOKEN")
        #expect(findings.count == 1, "\(Harness.describe(findings))")
        let evidence = try #require(findings.first?.evidence)
        try #require(evidence.count == 2)
        guard case .sent(.reply(_, .response(let refused)))? = OracleCheck.event(evidence[0], in: outcome)?.kind else {
            Issue.record("evidence #\(evidence[0]) is not the reply that refused the stale request")
            return
        }
        #expect(refused.status == 401)
        #expect(OracleCheck.request(evidence[1], in: outcome)?.path == "/auth/refresh")
        #expect(findings.first?.message.contains("replaced at#1") == true, "\(Harness.describe(findings))")
    }
}

@Suite("oracle: retries-wait-for-the-refresh")
struct RetriesWaitForTheRefreshTests {
    /// The slow request carries at#1 and is held; the fast one refreshes to at#2; the inbox request is refused
    /// for at#2 and its refresh is held; then the slow request is refused while that refresh is in flight. A
    /// re-send with the refused token would also break request-retried-at-most-once: re-sent at once with the
    /// current at#2, only the wait is missing.
    static let yaml = Harness.caseFile("""
      - id: refused-request-waits-for-the-refresh-in-flight
        title: A request refused while a refresh is in flight is re-sent only once that refresh has settled
        requirements: [REFRESH-SINGLE-FLIGHT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - hold: { path: /resources/slow }
          - request: { resource: slow }
          - fault: { path: /resources/fast, kind: expiredToken }
          - request: { resource: fast }
          - require: { results: { ok: 1 }, requests: [{ path: /auth/refresh, count: 1 }] }
          - fault: { path: /resources/inbox, kind: expiredToken }
          - hold: { path: /auth/refresh }
          - request: { resource: inbox }
          - fault: { path: /resources/slow, kind: expiredToken }
          - release: { path: /resources/slow }
          - require: { state: refreshing, requests: [{ path: /auth/refresh, count: 1 }] }
          - release: { path: /auth/refresh }
          - expect: { for: [REFRESH-SINGLE-FLIGHT], state: authenticated, results: { ok: 2 }, requests: [{ path: /auth/refresh, count: 0 }] }

    """)

    @Test("a client whose refused request waits for the refresh in flight raises no finding")
    func waitingPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that re-sends a refused request while the refresh is in flight fails REFRESH-SINGLE-FLIGHT")
    func retryWithoutWaitingFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .retriesWithoutWaiting,
                                                        oracle: "retries-wait-for-the-refresh",
                                                        requirement: "REFRESH-SINGLE-FLIGHT")
        #expect(findings.count == 1, "\(Harness.describe(findings))")
        let evidence = try #require(findings.first?.evidence)
        try #require(evidence.count == 3)
        let refresh = try #require(OracleCheck.request(evidence[1], in: outcome))
        #expect(refresh.path == "/auth/refresh")
        #expect(refresh.body["refresh_token"]?.string.flatMap { outcome.vault.token($0)?.handle } == "rt#2")
        let retry = try #require(OracleCheck.request(evidence[2], in: outcome))
        #expect(retry.path == "/resources/slow")
        guard case .sent(.reply(_, .response(let refused)))? = OracleCheck.event(evidence[0], in: outcome)?.kind else {
            Issue.record("evidence #\(evidence[0]) is not the reply that refused the slow request")
            return
        }
        #expect(refused.status == 401)
        #expect(evidence[1] < evidence[0] && evidence[0] < evidence[2], "refresh started, request refused, re-sent: \(evidence)")
    }
}

@Suite("oracle: ended-session-credentials-cleared")
struct EndedSessionCredentialsClearedTests {
    static let signOut = Harness.caseFile("""
      - id: sign-out-clears-the-stored-session
        title: After sign-out secure storage holds no token of the ended session
        requirements: [SIGNOUT-BLOCK-AND-CLEAR]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated, tokensStored: true }
          - signOut: {}
          - expect: { for: [SIGNOUT-BLOCK-AND-CLEAR], state: signedOut, revoked: alice }

    """)

    static let rejectedRefresh = Harness.caseFile("""
      - id: rejected-refresh-clears-the-stored-session
        title: After the server rejects the refresh secure storage holds no token of the ended session
        requirements: [REFRESH-REJECTION-ONE-TRANSITION]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated, tokensStored: true }
          - fault: { path: /resources/*, kind: expiredToken }
          - fault: { path: /auth/refresh, kind: invalidGrant }
          - request: { resource: inbox }
          - expect: { for: [REFRESH-REJECTION-ONE-TRANSITION], state: signedOut }

    """)

    @Test("a client that deletes the stored session at sign-out raises no finding")
    func signOutClearsPasses() throws {
        try OracleCheck.passes(Self.signOut)
    }

    @Test("a client that deletes the stored session when the refresh is rejected raises no finding")
    func rejectionClearsPasses() throws {
        try OracleCheck.passes(Self.rejectedRefresh)
    }

    @Test("a client that keeps its tokens stored after sign-out fails SIGNOUT-BLOCK-AND-CLEAR, citing the sign-out")
    func tokensKeptAfterSignOutFail() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.signOut, defect: .keepsTokensAfterSessionEnds,
                                                        oracle: "ended-session-credentials-cleared",
                                                        requirement: "SIGNOUT-BLOCK-AND-CLEAR")
        #expect(findings.map(\.requirements) == [["SIGNOUT-BLOCK-AND-CLEAR"]])
        let evidence = try #require(findings.first?.evidence.first)
        #expect(OracleCheck.transition(evidence, in: outcome)?.transition == "sign-out")
        #expect(findings.first?.message == "the session ended at 'sign-out', yet secure storage still holds at#1")
    }

    @Test("a client that keeps its tokens stored after a rejected refresh fails REFRESH-REJECTION-ONE-TRANSITION only")
    func tokensKeptAfterRejectionFail() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.rejectedRefresh, defect: .keepsTokensAfterSessionEnds,
                                                        oracle: "ended-session-credentials-cleared",
                                                        requirement: "REFRESH-REJECTION-ONE-TRANSITION")
        #expect(findings.map(\.requirements) == [["REFRESH-REJECTION-ONE-TRANSITION"]])
        let evidence = try #require(findings.first?.evidence.first)
        #expect(OracleCheck.transition(evidence, in: outcome)?.transition == "refresh-rejected")
    }
}

@Suite("oracle: sign-in-input-validated-first")
struct SignInInputValidatedFirstTests {
    static let yaml = Harness.caseFile("""
      - id: malformed-sign-in-sends-nothing
        title: A malformed email or a short password is refused before any request; valid input signs in
        requirements: [SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          - require: { state: signedOut }
          - signIn: { email: "not-an-email", password: "long enough secret" }
          - signIn: { email: "alice@example.com", password: "short" }
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], state: authenticated }

    """)

    @Test("a client that refuses malformed input locally raises no finding")
    func validatedPasses() throws {
        try OracleCheck.passes(Self.yaml)
    }

    @Test("a client that sends malformed input to the server fails SIGNIN-VALIDATE-INPUT, once per malformed sign-in")
    func unvalidatedInputFails() throws {
        let (findings, outcome) = try OracleCheck.fails(Self.yaml, defect: .skipsInputValidation,
                                                        oracle: "sign-in-input-validated-first",
                                                        requirement: "SIGNIN-VALIDATE-INPUT")
        #expect(findings.count == 1, "\(Harness.describe(findings))")
        let finding = try #require(findings.first)
        #expect(finding.occurrences == 2, "the valid sign-in's login is not a finding")
        #expect(finding.evidence.count == 2)
        let bodies = finding.evidence.compactMap { OracleCheck.request($0, in: outcome) }
        #expect(bodies.map(\.path) == ["/auth/login", "/auth/login"])
        #expect(bodies.compactMap { $0.body["email"]?.string } == ["not-an-email", "alice@example.com"])
    }
}

/// A client that refreshes ahead of expiry on its own clock (a library's margin) refreshes before it retries a stale
/// 401 whatever the 401 was: the refresh is its expiry rule's, as the trace shows the rule, not the 401's.
@Suite("oracle: stale-401-retried-with-latest-token, a client that refreshes ahead of expiry")
struct StaleUnauthorizedExpiryRuleTests {
    /// Alice signs in. With `unprovokedLeft` seconds of life left on at#1 the client refreshes on its own (no 401)
    /// to at#2 and stores it. After at#1 expired, a request that carried it is refused, and the client refreshes for
    /// that request with `staleRefreshLeft` seconds of life left on at#2.
    static func findings(unprovokedLeft: Double, staleRefreshLeft: Double) throws -> [Finding] {
        var crafted = CraftedTrace()
        let first = crafted.signInAlice()
        let lifetime = try #require(crafted.world.vault.token(first.access).flatMap { token in token.expiresAt.map { $0 - token.issuedAt } })
        func advance(to moment: Double) {
            crafted.world.advance(by: moment - crafted.time)
            crafted.time = moment
        }
        func store(_ value: String) {
            let id = crafted.nextID("s")
            crafted.add(.received(.storage(id: id, operation: .set, key: "session", value: "{\"at\":\"\(value)\"}", accessibility: .afterFirstUnlock)))
            crafted.add(.sent(.reply(id: id, .done)))
        }
        store(first.access)
        advance(to: lifetime - unprovokedLeft)
        let refreshed = crafted.exchange(RefreshAfterRejectionTests.refresh(first.refresh), cause: "c2")
        guard case .response(let response) = refreshed, let second = response.body["access_token"]?.string,
              let secondRefresh = response.body["refresh_token"]?.string else {
            Issue.record("the refresh failed: \(refreshed)")
            return []
        }
        store(second)
        advance(to: 2 * lifetime - unprovokedLeft - staleRefreshLeft)
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(first.access)"]),
                         cause: "c3")
        crafted.exchange(RefreshAfterRejectionTests.refresh(secondRefresh), cause: "c3")
        return try crafted.findings(StaleUnauthorizedRetriedWithLatestToken())
    }

    @Test("the refresh after a stale 401 passes when the newest token had no more life left than at an unprovoked refresh")
    func refreshWithinTheObservedMarginPasses() throws {
        #expect(try Self.findings(unprovokedLeft: 100, staleRefreshLeft: 50).isEmpty)
    }

    @Test("the refresh after a stale 401 fails when the newest token had more life left than at any unprovoked refresh")
    func refreshBeyondTheObservedMarginFails() throws {
        let findings = try Self.findings(unprovokedLeft: 100, staleRefreshLeft: 150)
        #expect(findings.map(\.requirements) == [["REFRESH-USE-LATEST-TOKEN"]], "\(Harness.describe(findings))")
    }
}

/// A request refused with a 401 that waited for a refresh and retries with the token it delivered does not also wait
/// for a refresh started since (a client's own expiry rule); one that retries with the refused token, or with a new
/// token refused since, does.
@Suite("oracle: retries-wait-for-the-refresh, after the request's own refresh")
struct RetriesWaitAfterOwnRefreshTests {
    enum Retry: CaseIterable { case withTheNewToken, withTheRefusedToken, withTheNewTokenRefusedSince }

    @Test("a retry with the token of a refresh that settled after its 401 need not wait for a later refresh",
          arguments: Retry.allCases)
    func retryAfterItsOwnRefresh(retry: Retry) throws {
        var crafted = CraftedTrace()
        let first = crafted.signInAlice()
        let lifetime = try #require(crafted.world.vault.token(first.access).flatMap { token in token.expiresAt.map { $0 - token.issuedAt } })
        crafted.world.advance(by: lifetime + 1)
        crafted.time = lifetime + 1
        let inbox = HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(first.access)"])
        crafted.exchange(inbox, cause: "c1")
        let refreshed = crafted.exchange(RefreshAfterRejectionTests.refresh(first.refresh), cause: "c1")
        guard case .response(let response) = refreshed, let second = response.body["access_token"]?.string,
              let secondRefresh = response.body["refresh_token"]?.string else {
            Issue.record("the refresh failed: \(refreshed)")
            return
        }
        if retry == .withTheNewTokenRefusedSince {
            crafted.world.server.auth.revokeAll(account: "acct-alice")
            crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/news", headers: ["authorization": "Bearer \(second)"]),
                             cause: "c2")
        }
        // Another refresh, still in flight when the request is sent again.
        crafted.add(.received(.http(id: "e90", cause: "c3", RefreshAfterRejectionTests.refresh(secondRefresh))))
        let carried = retry == .withTheRefusedToken ? first.access : second
        crafted.add(.received(.http(id: "e91", cause: "c1", HTTPRequestMessage(
            method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(carried)"]))))
        let findings = try crafted.findings(RetriesWaitForTheRefresh())
        #expect(findings.map(\.requirements) == (retry == .withTheNewToken ? [] : [["REFRESH-SINGLE-FLIGHT"]]),
                "\(Harness.describe(findings))")
    }
}

/// Two 401s delivered together, one for a replaced token and one for the current: a client that handles replies on
/// several threads decides to retry the first with the current token before it knows the second started a refresh.
@Suite("oracle: retries-wait-for-the-refresh, two refusals delivered together")
struct RetriesWaitRefusalsTogetherTests {
    /// Alice's first pair replaced by a refresh; c8 sent with the replaced token, c10 with the current one; both
    /// refused. `together`: both refusals delivered before the client says anything; otherwise c10's refusal and
    /// its refresh come first. Then the refresh (for c10) and c8's retry with the current token.
    static func trace(together: Bool) throws -> CraftedTrace {
        var crafted = CraftedTrace()
        let first = crafted.signInAlice()
        let refreshed = crafted.exchange(RefreshAfterRejectionTests.refresh(first.refresh), cause: "c0")
        guard case .response(let response) = refreshed, let second = response.body["access_token"]?.string,
              let secondRefresh = response.body["refresh_token"]?.string else { throw CancellationError() }
        crafted.world.addFault(path: "/resources/*", kind: .expiredToken, times: 2)
        let stale = HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(first.access)"])
        let current = HTTPRequestMessage(method: "GET", path: "/resources/feed", headers: ["authorization": "Bearer \(second)"])
        crafted.add(.received(.http(id: "e8", cause: "c8", stale)))
        crafted.add(.received(.http(id: "e10", cause: "c10", current)))
        let reply = { (crafted: inout CraftedTrace, id: String, request: HTTPRequestMessage) in
            if case .response(let refusal) = crafted.world.serve(request) { _ = crafted.add(.sent(.reply(id: id, .response(refusal)))) }
        }
        let refresh = { (crafted: inout CraftedTrace) in
            _ = crafted.add(.received(.http(id: "e11", cause: "c10", RefreshAfterRejectionTests.refresh(secondRefresh))))
        }
        if together {
            reply(&crafted, "e10", current)
            reply(&crafted, "e8", stale)
            refresh(&crafted)
        } else {
            reply(&crafted, "e10", current)
            refresh(&crafted)
            reply(&crafted, "e8", stale)
        }
        crafted.add(.received(.http(id: "e12", cause: "c8", HTTPRequestMessage(
            method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(second)"]))))
        return crafted
    }

    @Test("delivered together, the stale request's retry with the current token is no charge; delivered after the refresh went out, it is")
    func refusalsTogether() throws {
        #expect(try Self.trace(together: true).findings(RetriesWaitForTheRefresh()).isEmpty)
        let late = try Self.trace(together: false).findings(RetriesWaitForTheRefresh())
        #expect(late.map(\.requirements) == [["REFRESH-SINGLE-FLIGHT"]], "\(Harness.describe(late))")
    }
}
