import ConformanceProtocol
@testable import ConformanceRunner
import JSONCore
import SimulatedWorld
import Testing

@Suite("the world in either dialect")
struct WorldDialectTests {
    static let formRefresh = HTTPRequestMessage(
        method: "POST", path: "/oauth/token", headers: ["content-type": "application/x-www-form-urlencoded"],
        body: "grant_type=refresh_token&refresh_token=srt_x")

    @Test("a case path names a token-endpoint grant by its json-v1 alias; other paths do not match it")
    func casePathsMatchAliases() {
        let world = World(seed: 1, profile: .rfc6749)
        #expect(world.matches(pattern: "/auth/refresh", Self.formRefresh))
        #expect(world.matches(pattern: "/oauth/token", Self.formRefresh))
        #expect(world.matches(pattern: "/auth/*", Self.formRefresh))
        #expect(!world.matches(pattern: "/auth/login", Self.formRefresh))
    }

    @Test("a fault planned for /auth/refresh answers a form-encoded refresh at /oauth/token")
    func faultsFollowAliases() {
        var world = World(seed: 1, profile: .rfc6749)
        world.addFault(path: "/auth/refresh", kind: .serverError, times: 1)
        guard case .response(let faulted) = world.serve(Self.formRefresh) else { Issue.record("no response"); return }
        #expect(faulted.status == 503)
        #expect(faulted.headers["date"] != nil)
        guard case .response(let served) = world.serve(Self.formRefresh) else { Issue.record("no response"); return }
        #expect(served.status == 400)
        #expect(served.body["error"]?.string == "invalid_grant")
    }
}
