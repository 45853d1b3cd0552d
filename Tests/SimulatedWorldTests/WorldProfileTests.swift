import ConformanceProtocol
import JSONCore
import SimulatedWorld
import Testing

/// A world serving one profile, with requests in both encodings.
private struct ProfiledServer {
    var world: WorldServer
    let time = WorldServer.epoch

    init(_ profile: WorldProfile) { world = WorldServer(seed: 3, profile: profile) }

    mutating func post(_ path: String, form text: String) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "POST", path: path, headers: ["content-type": "application/x-www-form-urlencoded"],
                                             body: .string(text)), at: time)
    }

    mutating func post(_ path: String, json: JSONValue) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "POST", path: path, headers: ["content-type": "application/json"], body: json), at: time)
    }

    mutating func get(_ path: String, bearer: String) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "GET", path: path, headers: ["authorization": "Bearer \(bearer)"]), at: time)
    }
}

/// A team's own API: other paths and field names, the account id from the profile, no rotation.
private let teamProfile = WorldProfile(
    name: "team-api",
    signIn: .init(path: "/api/v2/session", encoding: .json, grantType: nil, usernameField: "login", passwordField: "secret"),
    refresh: .init(path: "/api/v2/session/renew", encoding: .form, grantType: "refresh_token", refreshTokenField: "rt"),
    revocation: .init(path: "/api/v2/session/end", encoding: .form, tokenField: "rt"),
    profilePath: "/api/v2/whoami", resourcePrefix: "/api/v2/data/", accountID: .profile(field: "sub"),
    tokens: .init(accessTokenLifetime: 60, rotation: false, reuseInterval: 0))

@Suite("World profiles")
struct WorldProfileTests {
    @Test("Under json-v1 the /auth endpoints answer and the RFC 6749 paths are 404")
    func jsonV1ServesOnlyItsPaths() {
        var server = ProfiledServer(.jsonV1)
        let login = server.post("/auth/login", json: ["email": "alice@example.com", "password": "correct horse battery"])
        #expect(login.status == 200)
        #expect(login.body["account_id"]?.string == "acct-alice")
        let refresh = server.post("/auth/refresh", json: ["refresh_token": login.body["refresh_token"]!])
        #expect(refresh.status == 200)
        #expect(server.post("/auth/login", json: ["email": "alice@example.com", "password": "wrong"]).status == 401)
        #expect(server.post("/oauth/token", form: "grant_type=password&username=alice%40example.com&password=correct+horse+battery").status == 404)
        #expect(server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=x").status == 404)
        #expect(server.post("/oauth/revoke", form: "token=x").status == 404)
        let revoke = server.post("/auth/revoke", json: ["token": refresh.body["refresh_token"]!])
        #expect(revoke.status == 200)
        #expect(revoke.body["revoked"]?.bool == true)
        #expect(server.post("/auth/refresh", json: ["refresh_token": refresh.body["refresh_token"]!]).status == 400)
        #expect(server.post("/auth/revoke", json: [:]).status == 400, "a revocation without a token is never a silent 200")
        let second = server.post("/auth/login", json: ["email": "alice@example.com", "password": "correct horse battery"])
        #expect(server.post("/auth/revoke", json: ["refresh_token": second.body["refresh_token"]!]).status == 200,
                "json-v1 revocation also takes refresh_token, as it always has")
        #expect(server.post("/auth/refresh", json: ["refresh_token": second.body["refresh_token"]!]).status == 400)
    }

    @Test("Under rfc6749 the token endpoint answers and the json-v1 paths are 404")
    func rfc6749ServesOnlyItsPaths() {
        var server = ProfiledServer(.rfc6749)
        let login = server.post("/oauth/token", form: "grant_type=password&username=alice%40example.com&password=correct+horse+battery")
        #expect(login.status == 200)
        #expect(login.headers["cache-control"] == "no-store")
        #expect(server.post("/auth/login", json: ["email": "alice@example.com", "password": "correct horse battery"]).status == 404)
        #expect(server.post("/auth/refresh", json: ["refresh_token": login.body["refresh_token"]!]).status == 404)
        #expect(server.post("/auth/revoke", json: ["token": login.body["refresh_token"]!]).status == 404)
        #expect(server.post("/oauth/token", form: "grant_type=password&email=alice%40example.com&password=correct+horse+battery").status == 400,
                "the profile names the field username; email is a missing parameter")
        #expect(server.get("/me", bearer: login.body["access_token"]!.string!).status == 200)
    }

    @Test("A team's profile serves its own paths and field names, names the account only in the profile, and sets the token rules")
    func teamProfileServesItsOwnAPI() {
        var server = ProfiledServer(teamProfile)
        let login = server.post("/api/v2/session", json: ["login": "alice@example.com", "secret": "correct horse battery"])
        #expect(login.status == 200)
        #expect(login.body["account_id"] == nil, "the account id comes from the profile endpoint")
        #expect(login.body["expires_in"]?.int == 60)
        let access = login.body["access_token"]!.string!
        let refreshToken = login.body["refresh_token"]!.string!
        #expect(server.get("/api/v2/whoami", bearer: access).body["sub"]?.string == "acct-alice")
        #expect(server.get("/me", bearer: access).status == 404)
        #expect(server.get("/api/v2/data/inbox", bearer: access).status == 200)
        #expect(server.get("/resources/inbox", bearer: access).status == 404)
        let refresh = server.post("/api/v2/session/renew", form: "grant_type=refresh_token&rt=\(refreshToken)")
        #expect(refresh.status == 200)
        #expect(refresh.body["refresh_token"] == nil, "rotation is off in this profile")
        #expect(server.post("/api/v2/session/renew", form: "grant_type=password&rt=x").status == 400)
        #expect(server.post("/api/v2/session/end", form: "rt=\(refreshToken)").status == 200)
        #expect(server.post("/api/v2/session/renew", form: "grant_type=refresh_token&rt=\(refreshToken)").body["error"]?.string == "invalid_grant")
        #expect(server.post("/auth/login", json: ["email": "alice@example.com", "password": "correct horse battery"]).status == 404)
    }

    @Test("A request is named by the profile's endpoints, and shown to the checks in json-v1 form")
    func canonicalRequests() {
        let refresh = HTTPRequestMessage(method: "POST", path: "/api/v2/session/renew",
                                         headers: ["content-type": "application/x-www-form-urlencoded"], body: "grant_type=refresh_token&rt=srt_1")
        #expect(teamProfile.logical(refresh) == .refresh)
        #expect(WorldProfile.jsonV1.logical(refresh) == nil)
        #expect(teamProfile.casePaths(refresh) == ["/api/v2/session/renew", "/auth/refresh"])
        let canonical = teamProfile.canonicalRequest(refresh)
        #expect(canonical.path == "/auth/refresh")
        #expect(canonical.body == ["grant_type": "refresh_token", "refresh_token": "srt_1"])
        #expect(canonical.header("content-type") == "application/json")
        let login = HTTPRequestMessage(method: "POST", path: "/api/v2/session", headers: ["content-type": "application/json"],
                                       body: ["login": "a@b.c", "secret": "pw"])
        #expect(teamProfile.canonicalRequest(login).body == ["email": "a@b.c", "password": "pw"])
        let resource = HTTPRequestMessage(method: "GET", path: "/api/v2/data/inbox")
        #expect(teamProfile.canonicalRequest(resource) == resource)
    }

    @Test("The welcome describes the profile: paths, encodings, grant types, field names and the account-id source")
    func welcomeDescription() throws {
        let description = teamProfile.welcomeDescription
        #expect(description.name == "team-api")
        #expect(description.signIn == .init(path: "/api/v2/session", encoding: "json", grantType: nil,
                                            fields: ["username": "login", "password": "secret"]))
        #expect(description.refresh.grantType == "refresh_token")
        #expect(description.refresh.fields == ["refreshToken": "rt"])
        #expect(description.revocation == .init(path: "/api/v2/session/end", encoding: "form", fields: ["token": "rt"]))
        #expect(description.accountIDFrom == "profile")
        #expect(description.accountIDField == "sub")
        #expect(try WorldDescription(json: description.json) == description)
    }
}
