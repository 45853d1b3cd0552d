import ConformanceProtocol
@testable import ConformanceRunner
import Testing

@Suite("oracle: deferred-refresh-tried-again")
struct DeferredRefreshTriedAgainTests {
    /// Alice signed in; her refresh timed out at 0 s; at `after` seconds, in step 2, a request command answered
    /// with an error, with nothing sent for it.
    static func failedAtOnce(after: Double, online: Bool? = nil) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.received(.http(id: "r1", cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]))))
        crafted.add(.sent(.reply(id: "r1", .failure(ProtocolErrorCode.timeout.info("no response in time")))))
        if let online { crafted.add(.sent(.command(AppCommand(id: "c2", kind: online ? .online : .offline)))) }
        crafted.time = after
        crafted.step = 2
        crafted.add(.sent(.command(AppCommand(id: "c3", kind: .request, resource: "inbox"))))
        return crafted
    }

    static func answerFailed(_ crafted: inout CraftedTrace) {
        crafted.add(.received(.result(CommandResult(id: "c3", error: ErrorInfo(code: "timeout", definite: false)))))
    }

    @Test("a request failed at once 15 minutes after a retryable refresh failure that was never tried again fails")
    func stuckFailureFails() throws {
        var crafted = Self.failedAtOnce(after: 1000)
        Self.answerFailed(&crafted)
        let findings = try crafted.findings(DeferredRefreshTriedAgain())
        #expect(findings.map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]])
        #expect(findings.map(\.message) == [
            "a refresh failed for a retryable reason (timeout) and was never tried again: 1000 s later, authenticated and online, a request failed at once with nothing sent",
        ])
    }

    @Test("within the backoff's patience, offline, or after the refresh was tried again, a fast failure is legal")
    func backoffOfflineOrRetriedPasses() throws {
        var early = Self.failedAtOnce(after: 300)
        Self.answerFailed(&early)
        #expect(try early.findings(DeferredRefreshTriedAgain()).isEmpty)
        var offline = Self.failedAtOnce(after: 1000, online: false)
        Self.answerFailed(&offline)
        #expect(try offline.findings(DeferredRefreshTriedAgain()).isEmpty)
        var retried = Self.failedAtOnce(after: 1000)
        retried.add(.received(.http(id: "r2", cause: "c3", HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: [:]))))
        retried.add(.sent(.reply(id: "r2", .failure(ProtocolErrorCode.offline.info("offline")))))
        Self.answerFailed(&retried)
        #expect(try retried.findings(DeferredRefreshTriedAgain()).isEmpty)
    }

    /// As ``failedAtOnce(after:online:)``, with the refresh tried again at 10 s and answered 200 with a new pair,
    /// then, when `writeRefused`, that pair's write to secure storage refused.
    static func failedAfterASuccess(after: Double, writeRefused: Bool = false) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.received(.http(id: "r1", cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]))))
        crafted.add(.sent(.reply(id: "r1", .failure(ProtocolErrorCode.timeout.info("no response in time")))))
        crafted.time = 10
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]))
        if writeRefused {
            crafted.add(.received(.storage(id: "s1", operation: .set, key: "session.record", value: "pair", accessibility: .afterFirstUnlock)))
            crafted.add(.sent(.reply(id: "s1", .error(ProtocolErrorCode.writeFailed.info("the keystore refused the write")))))
        }
        crafted.time = 10 + after
        crafted.step = 2
        crafted.add(.sent(.command(AppCommand(id: "c3", kind: .request, resource: "inbox"))))
        answerFailed(&crafted)
        return crafted
    }

    @Test("a request failed at once 15 minutes after the retried refresh succeeded fails: the failure stuck (failed-refresh-sticks)")
    func failureKeptAfterASuccessFails() throws {
        let findings = try Self.failedAfterASuccess(after: 1000).findings(DeferredRefreshTriedAgain())
        #expect(findings.map(\.message) == [
            "a refresh failed for a retryable reason (timeout) and was tried again and succeeded (event #7), yet 1000 s later, authenticated and online, a request failed at once with nothing sent",
        ])
    }

    @Test("after a retried refresh succeeded, a fast failure within the patience, or once its pair could not be stored, is legal")
    func failureAfterASuccessWithinPatienceOrUnstoredPasses() throws {
        #expect(try Self.failedAfterASuccess(after: 300).findings(DeferredRefreshTriedAgain()).isEmpty)
        #expect(try Self.failedAfterASuccess(after: 1000, writeRefused: true).findings(DeferredRefreshTriedAgain()).isEmpty)
    }

    @Test("back online after an offline signal, the stuck failure is judged again")
    func onlineAgainFails() throws {
        var crafted = Self.failedAtOnce(after: 1000, online: true)
        Self.answerFailed(&crafted)
        #expect(try crafted.findings(DeferredRefreshTriedAgain()).count == 1)
    }
}

@Suite("oracle: ended-session-revoked")
struct EndedSessionRevokedTests {
    /// Alice signs in (step 1) and out (step 2); `revoked`: the sign-out sends her revocation; then in step 3 the
    /// same process signs in again, reaching the server.
    /// With `switched`, the session ends by an account switch instead.
    static func signedOut(revoked: Bool, killed: Bool = false, switched: Bool = false) -> CraftedTrace {
        var crafted = CraftedTrace()
        crafted.step = 1
        let tokens = crafted.signInAlice()
        crafted.step = 2
        crafted.add(.sent(.command(AppCommand(id: "c2", kind: switched ? .switchAccount : .signOut))))
        if switched {
            crafted.transition("account-switch", from: "authenticated", to: "signingIn")
        } else {
            crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        }
        if revoked { crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/revoke", body: ["token": .string(tokens.refresh)])) }
        if killed { crafted.kill(); crafted.relaunch() }
        crafted.step = 3
        _ = crafted.signInAlice()
        return crafted
    }

    @Test("a session the user ended, never revoked though the process reached the server afterwards, fails")
    func neverRevokedFails() throws {
        let findings = try Self.signedOut(revoked: false).findings(EndedSessionRevoked())
        #expect(findings.map(\.requirements) == [["SIGNOUT-REVOCATION-RETRY"]])
        #expect(findings.map(\.message) == [
            "the session of rt#1 was ended by sign-out, and the app then reached the server in a later step, but never asked the server to revoke it",
        ])
    }

    @Test("a revocation sent, a process killed before its next chance, or a switch (no explicit sign-out) raises no finding")
    func revokedOrKilledPasses() throws {
        #expect(try Self.signedOut(revoked: true).findings(EndedSessionRevoked()).isEmpty)
        #expect(try Self.signedOut(revoked: false, killed: true).findings(EndedSessionRevoked()).isEmpty)
        #expect(try Self.signedOut(revoked: false, switched: true).findings(EndedSessionRevoked()).isEmpty)
    }

    @Test("while an earlier revocation of the process is unanswered, the queue waits: no finding")
    func queueBehindHeldRevocationPasses() throws {
        var crafted = CraftedTrace()
        crafted.step = 1
        let first = crafted.signInAlice()
        crafted.add(.received(.http(id: "v1", cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/revoke", body: ["token": .string(first.refresh)]))))
        crafted.step = 2
        _ = crafted.signInAlice()
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        crafted.step = 3
        _ = crafted.signInAlice()
        #expect(try crafted.findings(EndedSessionRevoked()).isEmpty)
    }
}

@Suite("oracle: failed-sign-in-leaves-signing-in")
struct FailedSignInLeavesSigningInTests {
    /// A sign-in (step 1) the client reports as `signingIn`, answered with an error; `settled`: it then reports
    /// `sign-in-failed`. In step 2 the next command.
    static func failedSignIn(settled: Bool) -> CraftedTrace {
        var crafted = CraftedTrace()
        crafted.step = 1
        crafted.add(.sent(.command(AppCommand(id: "c1", kind: .signIn, email: "alice@example.com", password: "correct horse battery"))))
        crafted.transition("sign-in-started", from: "signedOut", to: "signingIn")
        crafted.add(.received(.result(CommandResult(id: "c1", error: ErrorInfo(code: "offline", definite: false)))))
        if settled { crafted.transition("sign-in-failed", from: "signingIn", to: "signedOut") }
        crafted.step = 2
        crafted.add(.sent(.command(AppCommand(id: "c2", kind: .request, resource: "inbox"))))
        return crafted
    }

    @Test("a failed sign-in still signingIn at the next step fails SESSION-STATE-MACHINE")
    func stuckSignInFails() throws {
        let findings = try Self.failedSignIn(settled: false).findings(FailedSignInLeavesSigningIn())
        #expect(findings.map(\.requirements) == [["SESSION-STATE-MACHINE"]])
        #expect(findings.map(\.message) == [
            "a sign-in failed (offline) and the client was still signingIn at the next step: a failed sign-in ends by sign-in-failed",
        ])
    }

    @Test("a failed sign-in that reported sign-in-failed raises no finding")
    func settledSignInPasses() throws {
        #expect(try Self.failedSignIn(settled: true).findings(FailedSignInLeavesSigningIn()).isEmpty)
    }
}
