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
                                            body: ["email": "bob@example.com", "password": "correct horse battery"]))
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
}
