import ConformanceProtocol
@testable import ConformanceRunner
import SimulatedWorld
import Testing

@Suite("a client that speaks another world profile")
struct WorldMismatchTests {
    static func outcome(_ requests: [HTTPRequestMessage], signedIn: Bool = false) -> CaseOutcome {
        var trace = Trace()
        trace.append(.processStarted(instance: 1), step: 0, instance: 1, time: 0)
        trace.append(.sent(.command(AppCommand(id: "c1", kind: .signIn))), step: 0, instance: 1, time: 0)
        for (number, request) in requests.enumerated() {
            trace.append(.received(.http(id: "e\(number + 1)", cause: "c1", request)), step: 0, instance: 1, time: 0)
        }
        if signedIn {
            trace.append(.received(.transition(TransitionEvent(transition: "sign-in-succeeded", from: "signingIn", to: "authenticated",
                                                               account: "acct-alice", generation: 2, reason: nil))),
                         step: 0, instance: 1, time: 0)
        }
        return CaseOutcome(caseID: "crafted", title: "crafted", file: "<test>", requirements: [], status: .pass, findings: [],
                           reason: nil, stderrTail: nil, trace: trace, vault: TokenVault(seed: 1), seed: 1)
    }

    static let jsonLogin = HTTPRequestMessage(method: "POST", path: "/auth/login",
                                              body: ["email": "alice@example.com", "password": "correct horse battery"])
    static let formLogin = HTTPRequestMessage(method: "POST", path: "/oauth/token",
                                              headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                              body: .string("grant_type=password&username=alice%40example.com&password=x"))

    @Test("a sign-in to a path only another shipped profile serves is named, with the --world that serves it")
    func otherProfileNamed() {
        #expect(WorldMismatch.hint(in: [Self.outcome([Self.jsonLogin])], profile: .rfc6749)
            == "the client sent POST /auth/login, which the world profile rfc6749 does not serve (json-v1 does): "
            + "if the client speaks json-v1, pass --world json-v1")
        #expect(WorldMismatch.hint(in: [Self.outcome([Self.formLogin])], profile: .jsonV1)
            == "the client sent POST /oauth/token, which the world profile json-v1 does not serve (rfc6749 does): "
            + "if the client speaks rfc6749, pass --world rfc6749")
    }

    @Test("requests the profile serves, resources and paths no profile serves give no hint")
    func noHint() {
        #expect(WorldMismatch.hint(in: [Self.outcome([Self.jsonLogin])], profile: .jsonV1) == nil)
        #expect(WorldMismatch.hint(in: [Self.outcome([Self.formLogin])], profile: .rfc6749) == nil)
        let others = [HTTPRequestMessage(method: "GET", path: "/resources/inbox"),
                      HTTPRequestMessage(method: "POST", path: "/api/session", body: ["user": "alice"])]
        #expect(WorldMismatch.hint(in: [Self.outcome(others)], profile: .rfc6749) == nil)
    }

    @Test("a run counts as signed in only when the client reached authenticated")
    func signedInNeedsTheTransition() {
        let failed = Self.outcome([Self.jsonLogin])
        #expect(WorldMismatch.askedToSignIn(failed) && !WorldMismatch.signedIn(failed))
        #expect(WorldMismatch.signedIn(Self.outcome([Self.jsonLogin], signedIn: true)))
    }
}
