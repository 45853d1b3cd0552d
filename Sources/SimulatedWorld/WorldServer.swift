import ConformanceProtocol
import JSONCore

/// The servers of the simulated world behind their HTTP endpoints: the authorization server in both dialects
/// (`WorldEndpoints`), the profile and the resources. Every response carries `Date`, the server's clock.
/// Faults, holds and the network are the caller's; this answers a request that reached the server.
public struct WorldServer: Sendable {
    /// 2026-01-01T00:00:00Z: the server clock at the start of every case.
    public static let epoch: Double = 1_767_225_600

    public var auth: AuthServer
    public var api = APIServer()
    public var endpoints = WorldEndpoints.standard

    public init(seed: UInt64, accounts: [WorldAccount] = WorldAccount.all) {
        auth = AuthServer(seed: seed, accounts: accounts)
    }

    /// Answers one request at server time `time` (seconds since 1970).
    public mutating func respond(to request: HTTPRequestMessage, at time: Double) -> HTTPResponseMessage {
        var response = route(request, at: time)
        response.headers["date"] = HTTPDate.format(time)
        return response
    }

    private mutating func route(_ request: HTTPRequestMessage, at time: Double) -> HTTPResponseMessage {
        // The endpoints take no query string (docs/adapter-protocol.md): a path with one is unknown.
        if request.path.contains("?") { return Self.notFound }
        let body = request.body
        switch (request.method.uppercased(), request.path) {
        case ("POST", endpoints.login):
            return JSONDialect.login(auth.login(email: body["email"]?.string ?? "", password: body["password"]?.string ?? "", at: time))
        case ("POST", endpoints.refresh):
            return JSONDialect.refresh(auth.refresh(body["refresh_token"]?.string, at: time))
        case ("POST", endpoints.revoke):
            auth.revoke(body["refresh_token"]?.string ?? body["token"]?.string)
            return HTTPResponseMessage(status: 200, body: ["revoked": true])
        case (_, endpoints.token):
            return TokenEndpoint.respond(to: request, auth: &auth, at: time)
        case (_, endpoints.revocation):
            return TokenEndpoint.revoke(request, auth: &auth)
        case ("GET", endpoints.profile):
            return authorized(request, at: time) { account, api in api.profile(for: account) }
        case ("GET", let path) where path.hasPrefix(endpoints.resourcePrefix):
            let name = String(path.dropFirst(endpoints.resourcePrefix.count))
            return authorized(request, at: time) { account, api in api.resource(name, for: account) }
        case ("GET", let path) where path.hasPrefix("/accounts/"):
            // `/accounts/{account_id}/resources/{name}`: the server authorizes every request, so a valid token
            // that reaches another account's data is refused.
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count == 4, parts[2] == "resources" else { return Self.notFound }
            return authorized(request, at: time) { account, api in
                guard account.id == parts[1] else {
                    // RFC 6750 §3.1: the token is valid but does not reach this resource.
                    return HTTPResponseMessage(
                        status: 403,
                        headers: ["www-authenticate": #"Bearer error="insufficient_scope", error_description="the token does not reach another account's resources""#],
                        body: ["error": "forbidden"])
                }
                return api.resource(String(parts[3]), for: account)
            }
        default:
            return Self.notFound
        }
    }

    static let notFound = HTTPResponseMessage(status: 404, body: ["error": "not_found"])

    /// Serves `handler` for the account whose valid access token the request carries, or answers 401 as
    /// RFC 6750 §3 says.
    private mutating func authorized(_ request: HTTPRequestMessage, at time: Double,
                                     _ handler: (WorldAccount, inout APIServer) -> HTTPResponseMessage) -> HTTPResponseMessage {
        if let problem = auth.accessProblem(request.bearerToken, at: time) { return Self.unauthorized(problem) }
        guard let account = auth.vault.token(request.bearerToken ?? "").flatMap({ auth.account(withID: $0.account) }) else {
            return Self.unauthorized(.unknown)
        }
        return handler(account, &api)
    }

    /// RFC 6750 §3: no token is a bare challenge; a refused one is `invalid_token` with a description. A
    /// revoked session says so in the body (`session_revoked`), so a client can tell it from an expiry.
    static func unauthorized(_ problem: AccessProblem) -> HTTPResponseMessage {
        let challenge: String
        let code: String
        switch problem {
        case .missing:
            challenge = #"Bearer realm="world""#
            code = "invalid_token"
        case .unknown:
            challenge = #"Bearer realm="world", error="invalid_token", error_description="the access token is unknown""#
            code = "invalid_token"
        case .expired:
            challenge = #"Bearer realm="world", error="invalid_token", error_description="the access token expired""#
            code = "invalid_token"
        case .revoked:
            challenge = #"Bearer realm="world", error="invalid_token", error_description="the session was revoked""#
            code = "session_revoked"
        }
        return HTTPResponseMessage(status: 401, headers: ["www-authenticate": challenge], body: ["error": .string(code)])
    }
}

/// The `json-v1` answers: today's `/auth/login` and `/auth/refresh`.
enum JSONDialect {
    static func login(_ result: Result<AuthServer.Grant, AuthServer.Refusal>) -> HTTPResponseMessage {
        switch result {
        case .success(let grant): tokenResponse(grant)
        case .failure: HTTPResponseMessage(status: 401, body: ["error": "invalid_credentials"])
        }
    }

    static func refresh(_ result: Result<AuthServer.Grant, AuthServer.Refusal>) -> HTTPResponseMessage {
        switch result {
        case .success(let grant): tokenResponse(grant)
        case .failure: HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])
        }
    }

    static func tokenResponse(_ grant: AuthServer.Grant) -> HTTPResponseMessage {
        var body: [String: JSONValue] = [
            "access_token": .string(grant.access.value),
            "expires_in": .int(Int(grant.lifetime)), "token_type": "Bearer", "account_id": .string(grant.account),
        ]
        if let refresh = grant.refresh { body["refresh_token"] = .string(refresh.value) }
        return HTTPResponseMessage(status: 200, headers: ["content-type": "application/json", "cache-control": "no-store"],
                                   body: .object(body))
    }
}
