@testable import ConformanceRunner
import ConformanceProtocol
import Testing

/// While a session is live, only a signIn or switchAccount sends a login: a request that waited during a refresh does
/// not obtain credentials by a password grant of its own (REFRESH-SINGLE-FLIGHT).
@Suite("oracle: logins-asked-for-by-the-user")
struct LoginsAskedForByTheUserTests {
    static let aliceLogin = HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                body: ["email": "alice@example.com", "password": "correct horse battery"])

    @Test("a login no command asked for, sent while refreshing, fails REFRESH-SINGLE-FLIGHT")
    func loginDuringRefresh() throws {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c4", kind: .request, resource: "inbox"))))
        crafted.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        crafted.exchange(Self.aliceLogin, cause: "c4")
        crafted.exchange(Self.aliceLogin, cause: "c4")
        let findings = try crafted.findings(LoginsAskedForByTheUser())
        #expect(findings.map(\.requirements) == [["REFRESH-SINGLE-FLIGHT"]])
        #expect(findings.first?.message.contains("while the session was refreshing") == true, "\(findings.map(\.message))")
    }

    @Test("a switch's login, by its cause or by a switch waiting for its result, is the user's")
    func switchLogin() throws {
        for cause in ["c5", nil] {
            var crafted = CraftedTrace()
            _ = crafted.signInAlice()
            crafted.add(.sent(.command(AppCommand(id: "c5", kind: .switchAccount, email: "bob@example.com", password: "staple tuna pony"))))
            crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                body: ["email": "bob@example.com", "password": "staple tuna pony"]), cause: cause)
            #expect(try crafted.findings(LoginsAskedForByTheUser()).isEmpty, "cause \(cause ?? "none")")
        }
    }

    @Test("a login while signed out, or after the server rejected the session, is not this oracle's")
    func notWhileLive() throws {
        var signedOut = CraftedTrace()
        _ = signedOut.signInAlice()
        signedOut.transition("sign-out", from: "authenticated", to: "signedOut")
        signedOut.exchange(Self.aliceLogin)
        #expect(try signedOut.findings(LoginsAskedForByTheUser()).isEmpty)

        var rejected = CraftedTrace()
        _ = rejected.signInAlice()
        rejected.transition("refresh-started", from: "authenticated", to: "refreshing", account: "acct-alice")
        rejected.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": "rt-unknown"]))
        rejected.exchange(Self.aliceLogin)
        #expect(try rejected.findings(LoginsAskedForByTheUser()).isEmpty)
    }
}
