import ConformanceProtocol
@testable import ConformanceRunner
import Testing

@Suite("oracle: no-command-blocked-by-an-unanswered-refresh")
struct NoCommandBlockedByAnUnansweredRefreshTests {
    /// Alice signed in; at time 0 a request command finds her token refused and the client sends a refresh that the
    /// world never answers.
    static func heldRefresh() -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        crafted.add(.received(.http(id: "e42", cause: "c7", HTTPRequestMessage(
            method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": .string(tokens.refresh)]))))
        return crafted
    }

    /// The virtual clock moves to `time`.
    static func clock(_ crafted: inout CraftedTrace, at time: Double) {
        crafted.time = time
        crafted.add(.world("the clock moved"))
    }

    @Test("a command still blocked behind an unanswered refresh once the clock passed the bound fails")
    func blockedCommandFails() throws {
        var crafted = Self.heldRefresh()
        Self.clock(&crafted, at: NoCommandBlockedByAnUnansweredRefresh.bound + 1)
        let findings = try crafted.findings(NoCommandBlockedByAnUnansweredRefresh())
        #expect(findings.map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]], "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("c7") == true)
    }

    @Test("a client that times the refresh out and answers the command passes")
    func timedOutAndAnsweredPasses() throws {
        var crafted = Self.heldRefresh()
        Self.clock(&crafted, at: 30)
        crafted.add(.received(.result(CommandResult(id: "c7", error: ErrorInfo(code: "refreshUnavailable", definite: false)))))
        Self.clock(&crafted, at: NoCommandBlockedByAnUnansweredRefresh.bound + 1)
        #expect(try crafted.findings(NoCommandBlockedByAnUnansweredRefresh()).isEmpty)
    }

    @Test("before the bound, after a kill, or while the client retries with a new request, nothing is judged")
    func notJudgedPasses() throws {
        var early = Self.heldRefresh()
        Self.clock(&early, at: NoCommandBlockedByAnUnansweredRefresh.bound - 1)
        #expect(try early.findings(NoCommandBlockedByAnUnansweredRefresh()).isEmpty)

        var killed = Self.heldRefresh()
        killed.kill()
        Self.clock(&killed, at: NoCommandBlockedByAnUnansweredRefresh.bound + 1)
        #expect(try killed.findings(NoCommandBlockedByAnUnansweredRefresh()).isEmpty)

        var retried = Self.heldRefresh()
        Self.clock(&retried, at: 31)
        retried.add(.received(.http(id: "e43", cause: "c7", HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: [:]))))
        Self.clock(&retried, at: NoCommandBlockedByAnUnansweredRefresh.bound + 1)
        #expect(try retried.findings(NoCommandBlockedByAnUnansweredRefresh()).isEmpty)
    }
}

@Suite("oracle: only-explicit-rejection-signs-out, after a refresh deferred on the client's deadline")
struct LateRejectionExplainsSignOutTests {
    @Test("a rejection that comes as the late reply of a deferred refresh explains the sign-out that follows it")
    func lateRejectionExplainsTheEnd() throws {
        var crafted = NoCommandBlockedByAnUnansweredRefreshTests.heldRefresh()
        crafted.time = 30
        crafted.transition("refresh-deferred", from: "refreshing", to: "authenticated", account: "acct-alice")
        // A retryable failure after the deferral: on its own it would make the sign-out suspect.
        crafted.add(.received(.http(id: "e50", cause: nil, HTTPRequestMessage(method: "GET", path: "/resources/inbox"))))
        crafted.add(.sent(.reply(id: "e50", .failure(ErrorInfo(code: "connectionLost", definite: false)))))
        crafted.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])))))
        crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        crafted.transition("refresh-rejected", from: "refreshing", to: "signedOut", account: "acct-alice")
        let findings = try crafted.findings(OnlyExplicitRejectionSignsOut())
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }
}

@Suite("oracle: only-explicit-rejection-signs-out, a switch still pending")
struct PendingSwitchSignOutTests {
    /// Alice signed in; a switch (c5) is given, a refresh completes before the switch ends the session, then the
    /// switch's sign-out; with `answered`, the switch was answered before the refresh completed.
    static func switchPending(answered: Bool) -> CraftedTrace {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.step = 2
        crafted.add(.sent(.command(AppCommand(id: "c5", kind: .switchAccount))))
        if answered { crafted.add(.received(.result(CommandResult(id: "c5", error: ErrorInfo(code: "invalidInput", definite: true))))) }
        crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        crafted.transition("refresh-succeeded", from: "refreshing", to: "authenticated", account: "acct-alice")
        crafted.step = 3
        crafted.transition("sign-out", from: "authenticated", to: "signedOut", account: "acct-alice")
        return crafted
    }

    @Test("a sign-out that ends a switch still unanswered when the session was last entered was asked for")
    func pendingSwitchAskedForTheEnd() throws {
        #expect(try Self.switchPending(answered: false).findings(OnlyExplicitRejectionSignsOut()).isEmpty)
    }

    @Test("a switch answered before the session was entered again asks for nothing after it")
    func answeredSwitchAsksNothing() throws {
        let findings = try Self.switchPending(answered: true).findings(OnlyExplicitRejectionSignsOut())
        #expect(findings.map(\.message) == ["the client signed out on its own; nobody asked it to"])
    }
}

@Suite("oracle: only-explicit-rejection-signs-out, after an access token was refused")
struct RefusedAccessTokenSignOutTests {
    /// Alice signed in, relaunched: `GET /me` with her access token is refused `reason` (the server revoked her session,
    /// or no longer accepts that access token), then `refreshed` or not, the launch ends signed out.
    static func restoreEnded(revoked: Bool, refreshed: Bool) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.relaunch()
        crafted.transition(nil, from: nil, to: "restoring")
        if revoked { crafted.world.server.auth.revokeAll(account: "acct-alice") } else { crafted.world.server.auth.expireAccessTokens(at: -1) }
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/me", headers: ["authorization": "Bearer \(tokens.access)"]), cause: "c2")
        if refreshed {
            crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]), cause: "c2")
        }
        crafted.transition("restore-failed", from: "restoring", to: "signedOut")
        return crafted
    }

    @Test("a launch that ends the session on a refused access token without trying its refresh token fails")
    func refusedTokenWithoutRefreshFails() throws {
        let findings = try Self.restoreEnded(revoked: false, refreshed: false).findings(OnlyExplicitRejectionSignsOut())
        #expect(findings.map(\.requirements) == [["REFRESH-ONLY-REJECTION-SIGNS-OUT"]])
        #expect(findings.map(\.message) == [
            "the client signed out ('restore-failed') when an access token was refused (401, not a revoked session) without trying its refresh token",
        ])
    }

    @Test("a revoked session, or a refresh tried after the refusal, explains the end: no finding",
          arguments: [(true, false), (true, true), (false, true)])
    func revokedOrRefreshedPasses(revoked: Bool, refreshed: Bool) throws {
        let findings = try Self.restoreEnded(revoked: revoked, refreshed: refreshed).findings(OnlyExplicitRejectionSignsOut())
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }
}

@Suite("oracle: only-explicit-rejection-signs-out, after a refresh answered 429")
struct RateLimitedRefreshSignOutTests {
    /// Alice signed in; her refresh is answered `status` with `error`, then the session ends as rejected.
    static func refreshAnswered(_ status: Int, _ error: String) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        crafted.add(.received(.http(id: "e42", cause: nil, HTTPRequestMessage(
            method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": .string(tokens.refresh)]))))
        crafted.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: status, body: ["error": .string(error)])))))
        crafted.transition("refresh-rejected", from: "refreshing", to: "signedOut", account: "acct-alice")
        return crafted
    }

    /// 001: "Treat only explicit rejections (400 invalid_grant, a revoked session) as logout."
    @Test("a session ended because a refresh was answered 429 (too many requests) fails REFRESH-ONLY-REJECTION-SIGNS-OUT; one answered 400 invalid_grant does not")
    func rateLimitIsNoRejection() throws {
        let findings = try Self.refreshAnswered(429, "too_many_requests").findings(OnlyExplicitRejectionSignsOut())
        #expect(findings.map(\.requirements) == [["REFRESH-ONLY-REJECTION-SIGNS-OUT"]], "\(findings.map(\.message))")
        #expect(try Self.refreshAnswered(400, "invalid_grant").findings(OnlyExplicitRejectionSignsOut()).isEmpty)
    }
}
