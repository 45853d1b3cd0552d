@testable import ConformanceRunner
import ConformanceProtocol
import Testing

/// Whose finding it is when another account's content is shown in a session: a response to a request sent before the
/// session began and answered after it is a late response (EPOCH-DISCARD-STALE-RESPONSES) even when the client never
/// reported the earlier session's end; content it got before the session began is a cache mix-up (CACHE-PARTITION).
@Suite("oracle: content-belongs-to-current-account, late responses across an unreported end")
struct StaleResponseAttributionTests {
    /// Alice signs in; a sign-in started over her session fails (no end is reported); alice's inbox request is on the
    /// wire; bob signs in; alice's response is answered after bob's sign-in (`answeredAfter`) or before it, and shown.
    static func shownInBobsSession(answeredAfter: Bool) throws -> [Finding] {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        crafted.transition("sign-in-started", from: "authenticated", to: "signingIn")
        crafted.transition("sign-in-failed", from: "signingIn", to: "signedOut")
        let request = HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(alice.access)"])
        crafted.add(.received(.http(id: "r1", cause: "c9", request)))
        guard case .response(let response) = crafted.world.serve(request), let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no inbox")
            return []
        }
        if !answeredAfter { crafted.add(.sent(.reply(id: "r1", .response(response)))) }
        crafted.transition("sign-in-started", from: "signedOut", to: "signingIn")
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                            body: ["email": "bob@example.com", "password": "staple tuna pony"]))
        crafted.transition("sign-in-succeeded", from: "signingIn", to: "authenticated", account: "acct-bob")
        if answeredAfter { crafted.add(.sent(.reply(id: "r1", .response(response)))) }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "inbox", account: "acct-bob", generation: 1, contentID: contentID))))
        return try crafted.findings(ContentBelongsToCurrentAccount())
    }

    @Test("a response sent before bob's session began and answered after it is a late response")
    func answeredAfterTheSessionBegan() throws {
        let findings = try Self.shownInBobsSession(answeredAfter: true)
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]])
        #expect(findings.first?.message == "alice's late response was shown in bob's session")
    }

    @Test("content alice got before bob's session began is a cache mix-up")
    func answeredBeforeTheSessionBegan() throws {
        let findings = try Self.shownInBobsSession(answeredAfter: false)
        #expect(findings.map(\.requirements) == [["CACHE-PARTITION-BY-ACCOUNT"]])
        #expect(findings.first?.message == "alice's cached content was shown in bob's session")
    }

    @Test("another account's content fetched with the token of a stale refresh result it took up is EPOCH-DISCARD-STALE-REFRESH's")
    func fetchedWithAStaleRefreshResult() throws {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        let refresh = HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(alice.refresh)])
        crafted.add(.received(.http(id: "r0", cause: nil, refresh)))
        crafted.transition("sign-out-during-refresh", from: "refreshing", to: "signedOut")
        crafted.transition("sign-in-started", from: "signedOut", to: "signingIn")
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                            body: ["email": "carol@example.com", "password": "river lamp violet"]))
        crafted.transition("sign-in-succeeded", from: "signingIn", to: "authenticated", account: "acct-carol")
        guard case .response(let refreshed) = crafted.world.serve(refresh), let access = refreshed.body["access_token"]?.string else {
            Issue.record("the world refused alice's refresh")
            return
        }
        crafted.add(.sent(.reply(id: "r0", .response(refreshed))))
        let outcome = crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(access)"]))
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no inbox")
            return
        }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "inbox", account: "acct-carol", generation: 1, contentID: contentID))))
        let findings = try crafted.findings(ContentBelongsToCurrentAccount())
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-REFRESH"]])
        #expect(findings.first?.message.hasPrefix("alice's content was shown in carol's session, fetched with at#") == true, "\(findings.map(\.message))")
    }

    @Test("alice's content answered before bob's session began but shown after it, as the result of a command given in her session, is a late response")
    func appliedLate() throws {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c4", kind: .request, resource: "inbox"))))
        let outcome = crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(alice.access)"]), cause: "c4")
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no inbox")
            return
        }
        crafted.transition("sign-in-started", from: "authenticated", to: "signingIn")
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                            body: ["email": "bob@example.com", "password": "staple tuna pony"]))
        crafted.transition("sign-in-succeeded", from: "signingIn", to: "authenticated", account: "acct-bob")
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "inbox", account: "acct-bob", generation: 1, contentID: contentID))))
        crafted.add(.received(.result(CommandResult(id: "c4", content: ["contentId": .string(contentID)]))))
        let findings = try crafted.findings(ContentBelongsToCurrentAccount())
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]])
        #expect(findings.first?.message == "alice's late response was shown in bob's session")
    }

    /// Alice's refresh is on the wire when a sign-in over her session (which reports no end) makes bob's session; the
    /// refresh then answers with alice's pair, which the client stores and sends in bob's session. With
    /// `presentingBobsToken`, the refresh instead presents the refresh token bob's own login issued, before his
    /// sign-in is reported: his session's refresh, not a stale one.
    static func refreshAcrossBobsSignIn(presentingBobsToken: Bool) -> (CraftedTrace, refreshed: String) {
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        var presented = alice.refresh
        if !presentingBobsToken { crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice") }
        let held = HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(alice.refresh)])
        if !presentingBobsToken { crafted.add(.received(.http(id: "r0", cause: nil, held))) }
        crafted.transition("sign-in-started", from: "authenticated", to: "signingIn")
        let login = crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                        body: ["email": "bob@example.com", "password": "staple tuna pony"]))
        if presentingBobsToken, case .response(let bobs) = login, let bobsRefresh = bobs.body["refresh_token"]?.string {
            presented = bobsRefresh
            crafted.add(.received(.http(id: "r0", cause: nil,
                                        HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(presented)]))))
        }
        crafted.transition("sign-in-succeeded", from: "signingIn", to: "authenticated", account: "acct-bob")
        let refresh = HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(presented)])
        guard case .response(let refreshed) = crafted.world.serve(refresh), let access = refreshed.body["access_token"]?.string else {
            Issue.record("the world refused the refresh")
            return (crafted, "")
        }
        crafted.add(.sent(.reply(id: "r0", .response(refreshed))))
        crafted.add(.received(.storage(id: "s1", operation: .set, key: "session", value: "{\"at\":\"\(access)\"}", accessibility: .afterFirstUnlock)))
        crafted.add(.sent(.reply(id: "s1", .done)))
        return (crafted, access)
    }

    @Test("a refresh result that arrives after a sign-in made the next session is stale, though the client reported no end")
    func refreshResultAcrossAnUnreportedEnd() throws {
        let (crafted, _) = Self.refreshAcrossBobsSignIn(presentingBobsToken: false)
        let findings = try crafted.findings(StaleRefreshResultDiscarded())
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-REFRESH"]])
        #expect(findings.first?.message == "a refresh result that arrived after 'sign-in-succeeded' was written to storage")
    }

    @Test("a refresh that presents the token of the sign-in's own login belongs to the session it started")
    func refreshOfTheNewSession() throws {
        let (crafted, _) = Self.refreshAcrossBobsSignIn(presentingBobsToken: true)
        #expect(try crafted.findings(StaleRefreshResultDiscarded()).isEmpty)
    }

    @Test("alice's content fetched in bob's session with her refresh result that arrived after his sign-in is EPOCH-DISCARD-STALE-REFRESH's")
    func contentOfAStaleRefreshAcrossAnUnreportedEnd() throws {
        var (crafted, access) = Self.refreshAcrossBobsSignIn(presentingBobsToken: false)
        let outcome = crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(access)"]))
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no inbox")
            return
        }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "inbox", account: "acct-bob", generation: 1, contentID: contentID))))
        let findings = try crafted.findings(ContentBelongsToCurrentAccount())
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-REFRESH"]])
        #expect(findings.first?.message.hasPrefix("alice's content was shown in bob's session, fetched with at#") == true, "\(findings.map(\.message))")
    }

    @Test("another account's content fetched in the session with that account's token is the taken-up credentials', not a cache's")
    func fetchedInTheSessionWithAnotherAccountsToken() throws {
        // Two sign-ins raced: bob's login was stored over carol's, yet carol's sign-in is the one that succeeded last.
        var crafted = CraftedTrace()
        let alice = crafted.signInAlice()
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                            body: ["email": "carol@example.com", "password": "river lamp violet"]))
        crafted.transition("sign-in-succeeded", from: "authenticated", to: "authenticated", account: "acct-carol")
        let outcome = crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/news", headers: ["Authorization": "Bearer \(alice.access)"]))
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no news")
            return
        }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "news", account: "acct-carol", generation: 2, contentID: contentID))))
        let findings = try crafted.findings(ContentBelongsToCurrentAccount())
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]])
        #expect(findings.first?.message == "alice's content was shown in carol's session, fetched in it with alice's at#1: the session took up another sign-in's credentials")
    }
}
