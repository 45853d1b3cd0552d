import ConformanceProtocol
import JSONCore
import SimulatedWorld
import Testing

/// A world with its accounts, and requests in both encodings.
struct Server {
    var world = WorldServer(seed: 1, profile: .rfc6749)
    var time = WorldServer.epoch

    static let form = ["content-type": "application/x-www-form-urlencoded"]
    static let alice = WorldAccount.named("alice")!

    mutating func post(_ path: String, form text: String, headers: [String: String] = [:]) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "POST", path: path, headers: Self.form.merging(headers) { $1 }, body: .string(text)), at: time)
    }

    mutating func post(_ path: String, json: JSONValue, headers: [String: String] = ["content-type": "application/json"]) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "POST", path: path, headers: headers, body: json), at: time)
    }

    mutating func get(_ path: String, bearer: String?) -> HTTPResponseMessage {
        world.respond(to: HTTPRequestMessage(method: "GET", path: path, headers: bearer.map { ["authorization": "Bearer \($0)"] } ?? [:]), at: time)
    }

    /// A form-encoded password grant for Alice; her access and refresh tokens.
    mutating func signIn() -> (access: String, refresh: String) {
        let response = post("/oauth/token", form: "grant_type=password&username=alice%40example.com&password=correct+horse+battery&client_id=app")
        return (response.body["access_token"]!.string!, response.body["refresh_token"]!.string!)
    }
}

func error(_ response: HTTPResponseMessage) -> String? { response.body["error"]?.string }

@Suite("RFC 6749 token endpoint")
struct TokenEndpointTests {
    @Test("A form-encoded password grant answers 200 with the §5.1 fields and Cache-Control: no-store")
    func formPasswordGrant() {
        var server = Server()
        let response = server.post("/oauth/token", form: "grant_type=password&username=alice%40example.com&password=correct+horse+battery&client_id=app")
        #expect(response.status == 200)
        for field in ["access_token", "refresh_token", "scope", "account_id"] {
            #expect(response.body[field]?.string != nil, "\(field)")
        }
        #expect(response.body["token_type"]?.string == "Bearer")
        #expect(response.body["expires_in"] == .int(300))
        #expect(response.body["account_id"]?.string == Server.alice.id)
        #expect(response.headers["cache-control"] == "no-store")
        #expect(response.headers["pragma"] == "no-cache")
    }

    @Test("A JSON password and refresh grant are accepted like form-encoded ones")
    func jsonGrants() {
        var server = Server()
        let login = server.post("/oauth/token", json: ["grant_type": "password", "username": "alice@example.com", "password": "correct horse battery"])
        #expect(login.status == 200)
        let refresh = server.post("/oauth/token", json: ["grant_type": "refresh_token", "refresh_token": login.body["refresh_token"]!])
        #expect(refresh.status == 200)
        #expect(refresh.body["refresh_token"] != login.body["refresh_token"], "rotated")
    }

    @Test("A form-encoded refresh grant rotates; the rotated token is then invalid_grant and revokes the family")
    func formRefreshRotates() {
        var server = Server()
        let tokens = server.signIn()
        let first = server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)")
        #expect(first.status == 200)
        #expect(first.headers["cache-control"] == "no-store")
        let reuse = server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)")
        #expect(reuse.status == 400)
        #expect(error(reuse) == "invalid_grant")
        let next = server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(first.body["refresh_token"]!.string!)")
        #expect(error(next) == "invalid_grant", "reuse revoked the whole family")
    }

    @Test("Wrong credentials and an unknown refresh token are 400 invalid_grant (§5.2)")
    func invalidGrant() {
        var server = Server()
        let login = server.post("/oauth/token", form: "grant_type=password&username=alice%40example.com&password=wrong")
        #expect(login.status == 400)
        #expect(error(login) == "invalid_grant")
        let refresh = server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=srt_unknown")
        #expect(refresh.status == 400)
        #expect(error(refresh) == "invalid_grant")
        #expect(refresh.headers["cache-control"] == "no-store")
    }

    @Test("Requests the server cannot parse are 400 invalid_request, never invalid_grant", arguments: [
        (["content-type": "application/x-www-form-urlencoded"], JSONValue.string("grant_type=refresh_token")),
        (["content-type": "application/x-www-form-urlencoded"], JSONValue.string("grant_type=refresh_token&refresh_token=a&refresh_token=b")),
        (["content-type": "application/x-www-form-urlencoded"], JSONValue.string("grant_type=refresh_token&refresh_token=%zz")),
        (["content-type": "application/x-www-form-urlencoded"], JSONValue.string("refresh_token=abc")),
        (["content-type": "text/plain"], JSONValue.string("grant_type=refresh_token&refresh_token=abc")),
        (["content-type": "application/json"], JSONValue.object(["grant_type": "refresh_token", "refresh_token": 42])),
        (["content-type": "application/x-www-form-urlencoded"], JSONValue.string("grant_type=password&username=alice%40example.com")),
    ])
    func invalidRequest(headers: [String: String], body: JSONValue) {
        var server = Server()
        let response = server.post("/oauth/token", json: body, headers: headers)
        #expect(response.status == 400)
        #expect(error(response) == "invalid_request")
        #expect(response.body["error_description"]?.string != nil)
    }

    @Test("A GET to the token endpoint is invalid_request (§3.2: POST only)")
    func getIsInvalidRequest() {
        var server = Server()
        let response = server.get("/oauth/token", bearer: nil)
        #expect(response.status == 400)
        #expect(error(response) == "invalid_request")
    }

    @Test("An unknown grant type is 400 unsupported_grant_type")
    func unsupportedGrantType() {
        var server = Server()
        let response = server.post("/oauth/token", form: "grant_type=client_credentials&client_id=app")
        #expect(response.status == 400)
        #expect(error(response) == "unsupported_grant_type")
    }

    @Test("HTTP Basic client authentication is accepted; malformed or contradicting credentials are 401 invalid_client")
    func clientAuthentication() {
        var server = Server()
        let grant = "grant_type=password&username=alice%40example.com&password=correct+horse+battery"
        // "app:" in base64: a public client with an empty secret.
        #expect(server.post("/oauth/token", form: grant, headers: ["authorization": "Basic YXBwOg=="]).status == 200)
        let malformed = server.post("/oauth/token", form: grant, headers: ["authorization": "Basic !!!"])
        #expect(malformed.status == 401)
        #expect(error(malformed) == "invalid_client")
        #expect(malformed.headers["www-authenticate"]?.hasPrefix("Basic") == true)
        let contradicting = server.post("/oauth/token", form: grant + "&client_id=other", headers: ["authorization": "Basic YXBwOg=="])
        #expect(error(contradicting) == "invalid_client")
    }

    @Test("Every response carries the server's Date, from the virtual clock")
    func dateHeader() {
        var server = Server()
        #expect(server.post("/oauth/token", form: "grant_type=nope").headers["date"] == "Thu, 01 Jan 2026 00:00:00 GMT")
        server.time += 86_400 + 3_661
        #expect(server.get("/nowhere", bearer: nil).headers["date"] == "Fri, 02 Jan 2026 01:01:01 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}

@Suite("RFC 7009 revocation")
struct RevocationTests {
    @Test("Revoking a refresh token revokes its family: the next refresh is invalid_grant, the access token is refused")
    func revocationRevokes() {
        var server = Server()
        let tokens = server.signIn()
        let revoked = server.post("/oauth/revoke", form: "token=\(tokens.refresh)&token_type_hint=refresh_token")
        #expect(revoked.status == 200)
        let refresh = server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)")
        #expect(refresh.status == 400)
        #expect(error(refresh) == "invalid_grant")
        #expect(server.get("/me", bearer: tokens.access).status == 401)
    }

    @Test("Revoking an access token revokes its family too")
    func revokingAccessToken() {
        var server = Server()
        let tokens = server.signIn()
        #expect(server.post("/oauth/revoke", form: "token=\(tokens.access)&token_type_hint=access_token").status == 200)
        #expect(error(server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)")) == "invalid_grant")
    }

    @Test("An unknown token is a 200 and changes nothing (§2.2)")
    func unknownToken() {
        var server = Server()
        let tokens = server.signIn()
        #expect(server.post("/oauth/revoke", form: "token=srt_unknown").status == 200)
        #expect(server.post("/oauth/token", form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)").status == 200)
    }

    @Test("A revocation the server cannot parse is 400 invalid_request, never a silent 200", arguments: [
        JSONValue.string("token_type_hint=refresh_token"),
        JSONValue.string("token=a&token=b"),
        JSONValue.array([]),
    ])
    func unparsable(body: JSONValue) {
        var server = Server()
        let response = server.post("/oauth/revoke", json: body, headers: Server.form)
        #expect(response.status == 400)
        #expect(error(response) == "invalid_request")
    }
}

@Suite("RFC 6750 resource errors")
struct ResourceErrorTests {
    @Test("A missing token is 401 with a bare Bearer challenge, no error code")
    func missingToken() {
        var server = Server()
        let response = server.get("/me", bearer: nil)
        #expect(response.status == 401)
        let challenge = response.headers["www-authenticate"] ?? ""
        #expect(challenge.hasPrefix("Bearer"))
        #expect(!challenge.contains("error="))
    }

    @Test("An expired or unknown token is 401 Bearer error=invalid_token with a description")
    func refusedToken() {
        var server = Server()
        let tokens = server.signIn()
        server.time += 300
        for token in [tokens.access, "sat_unknown"] {
            let response = server.get("/resources/inbox", bearer: token)
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
            #expect(response.headers["www-authenticate"]?.contains("error_description=") == true)
            #expect(error(response) == "invalid_token")
        }
    }

    @Test("A revoked session's token is invalid_token, and the body says session_revoked")
    func revokedSession() {
        var server = Server()
        let tokens = server.signIn()
        server.world.auth.revokeAll(account: Server.alice.id)
        let response = server.get("/me", bearer: tokens.access)
        #expect(response.status == 401)
        #expect(response.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
        #expect(error(response) == "session_revoked")
    }

    @Test("A valid token reaching another account's resources is 403 insufficient_scope")
    func insufficientScope() {
        var server = Server()
        let tokens = server.signIn()
        #expect(server.get("/accounts/\(Server.alice.id)/resources/inbox", bearer: tokens.access).status == 200)
        let response = server.get("/accounts/acct-bob/resources/inbox", bearer: tokens.access)
        #expect(response.status == 403)
        #expect(response.headers["www-authenticate"]?.contains(#"error="insufficient_scope""#) == true)
    }
}

@Suite("Logical endpoints")
struct LogicalEndpointTests {
    @Test("Token-endpoint grants are logins and refreshes, so case paths match them by their json-v1 alias")
    func aliases() {
        let endpoints = WorldEndpoints.standard
        let refresh = HTTPRequestMessage(method: "POST", path: "/oauth/token", headers: Server.form, body: "grant_type=refresh_token&refresh_token=x")
        #expect(endpoints.logical(refresh) == .refresh)
        #expect(endpoints.casePaths(refresh) == ["/oauth/token", "/auth/refresh"])
        let login = HTTPRequestMessage(method: "POST", path: "/oauth/token", body: ["grant_type": "password"])
        #expect(endpoints.logical(login) == .login)
        #expect(endpoints.logical(HTTPRequestMessage(method: "POST", path: "/oauth/revoke", body: "token=x")) == .revoke)
        #expect(endpoints.logical(HTTPRequestMessage(method: "POST", path: "/oauth/token", body: "grant_type=other")) == nil)
        #expect(WorldEndpoints.presentedToken(refresh) == "x")
    }
}
