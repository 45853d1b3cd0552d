import ConformanceProtocol
@testable import ConformanceRunner
import Foundation
import SimulatedWorld
import Testing

/// A switch while A's refresh is on the wire (`late-refresh-after-switch-is-discarded`): what a correct client
/// built another way may do, and whose requirement each wrong thing is.
@Suite("switch during a refresh")
struct SwitchDuringRefreshTests {
    static func accountsFile() throws -> String {
        try Harness.realCaseFile("accounts.yaml")
    }

    @Test("a sign-in that waits behind the refresh on the wire (a process-wide token lock) passes both variants: signingIn is legal meanwhile")
    func signInBehindATokenLockPasses() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.loginWaitsForRefreshOnTheWire = true
        let result = try Harness.run(try Self.accountsFile(), configuration)
        let variants = result.outcomes.filter { $0.caseID.hasPrefix("late-refresh-after-switch-is-discarded[") }
        #expect(variants.count == 2)
        for outcome in variants {
            #expect(outcome.status == .pass, "\(outcome.caseID): \(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
            // The lock held the sign-in: bob's login went out only after A's refresh was answered.
            let index = TraceIndex(outcome.trace)
            let refresh = try #require(index.exchanges.first { $0.isRefresh })
            let bobLogin = try #require(index.exchanges.last { $0.endpoint == .login })
            #expect(bobLogin.event > (refresh.replyEvent ?? .max), "\(Harness.rendered(outcome))")
        }
    }

    /// Alice's inbox request is on the wire when she switches to Bob (signingIn); its response arrives after the
    /// switch (`late`) or before it, and is shown while still signing in.
    static func shownWhileSigningIn(late: Bool) throws -> [Finding] {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        let request = HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(tokens.access)"])
        crafted.add(.received(.http(id: "r1", cause: "c5", request)))
        if late { crafted.transition("account-switch", from: "authenticated", to: "signingIn", account: "acct-alice") }
        let outcome = crafted.world.serve(request)
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no inbox")
            return []
        }
        crafted.add(.sent(.reply(id: "r1", .response(response))))
        if !late { crafted.transition("account-switch", from: "authenticated", to: "signingIn", account: "acct-alice") }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "inbox", account: "acct-alice", generation: 1, contentID: contentID))))
        return try crafted.findings(ContentBelongsToCurrentAccount())
    }

    @Test("the previous account's late response shown while signing in is charged to EPOCH-DISCARD-STALE-RESPONSES, not CACHE-CLEAR-ON-SWITCH")
    func lateResponseWhileSigningIn() throws {
        let findings = try Self.shownWhileSigningIn(late: true)
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]])
        #expect(findings.first?.message == "alice's response that arrived after the session ended was shown while signing in")
    }

    @Test("content the previous account got before the switch, shown while signing in, is CACHE-CLEAR-ON-SWITCH's")
    func keptContentWhileSigningIn() throws {
        let findings = try Self.shownWhileSigningIn(late: false)
        #expect(findings.map(\.requirements) == [["CACHE-CLEAR-ON-SWITCH"]])
        #expect(findings.first?.message == "alice's private content was shown while signing in")
    }
}
