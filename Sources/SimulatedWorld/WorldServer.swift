import ConformanceProtocol
import JSONCore

/// The servers of the simulated world behind the HTTP endpoints of one `WorldProfile`: the authorization
/// server, the profile and the resources. Every response carries `Date`, the server's clock. A path the
/// profile does not name is a 404. Faults, holds and the network are the caller's; this answers a request
/// that reached the server.
public struct WorldServer: Sendable {
    /// 2026-01-01T00:00:00Z: the server clock at the start of every case.
    public static let epoch: Double = 1_767_225_600

    public var auth: AuthServer
    public var api = APIServer()
    public let profile: WorldProfile

    /// A server speaking `profile`, whose token rules become the auth server's starting rules.
    public init(seed: UInt64, accounts: [WorldAccount] = WorldAccount.all, profile: WorldProfile = .jsonV1) {
        auth = AuthServer(seed: seed, accounts: accounts)
        self.profile = profile
        auth.accessTokenLifetime = profile.tokens.accessTokenLifetime
        auth.rotatesRefreshTokens = profile.tokens.rotation
        auth.reuseInterval = profile.tokens.reuseInterval
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
        let method = request.method.uppercased()
        let path = request.path
        if path == profile.signIn.path || path == profile.refresh.path {
            // An RFC 6749 token endpoint answers every method (a GET is invalid_request); a json-v1 one only POST.
            if (path == profile.signIn.path && profile.signIn.grantType != nil)
                || (path == profile.refresh.path && profile.refresh.grantType != nil) {
                return TokenEndpoint.respond(to: request, profile: profile, auth: &auth, at: time)
            }
            guard method == "POST" else { return Self.notFound }
            let parameters = (try? RequestParameters.parse(request).get()) ?? RequestParameters(values: [:])
            if path == profile.signIn.path {
                return JSONDialect.login(accountField: profile.accountIDField, auth.login(email: parameters[profile.signIn.usernameField] ?? "",
                                                    password: parameters[profile.signIn.passwordField] ?? "", at: time))
            }
            return JSONDialect.refresh(accountField: profile.accountIDField, auth.refresh(parameters[profile.refresh.refreshTokenField], at: time))
        }
        if path == profile.revocation.path {
            if profile.revocation.encoding == .form {
                return TokenEndpoint.revoke(request, tokenField: profile.revocation.tokenField, auth: &auth)
            }
            guard method == "POST" else { return Self.notFound }
            return JSONDialect.revoke(request, tokenField: profile.revocation.tokenField, auth: &auth)
        }
        switch (method, path) {
        case ("GET", profile.profilePath):
            let field = profile.profileAccountField
            return authorized(request, at: time) { account, api in api.profile(for: account, accountField: field) }
        case ("GET", let path) where path.hasPrefix(profile.resourcePrefix):
            let name = String(path.dropFirst(profile.resourcePrefix.count))
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

/// The `json-v1` answers: today's `/auth/login`, `/auth/refresh` and `/auth/revoke`.
enum JSONDialect {
    /// Revokes the family of the token in `tokenField` (or, as `json-v1` always has, in `refresh_token`); a body
    /// with neither is a 400 `invalid_request`, never a silent 200.
    static func revoke(_ request: HTTPRequestMessage, tokenField: String, auth: inout AuthServer) -> HTTPResponseMessage {
        let parameters = try? RequestParameters.parse(request).get()
        guard let token = parameters?[tokenField] ?? parameters?["refresh_token"] else {
            return HTTPResponseMessage(status: 400, headers: ["content-type": "application/json"],
                                       body: ["error": "invalid_request", "error_description": .string("\(tokenField) is missing")])
        }
        auth.revoke(token)
        return HTTPResponseMessage(status: 200, body: ["revoked": true])
    }

    static func login(accountField: String?, _ result: Result<AuthServer.Grant, AuthServer.Refusal>) -> HTTPResponseMessage {
        switch result {
        case .success(let grant): tokenResponse(grant, accountField: accountField)
        case .failure: HTTPResponseMessage(status: 401, body: ["error": "invalid_credentials"])
        }
    }

    static func refresh(accountField: String?, _ result: Result<AuthServer.Grant, AuthServer.Refusal>) -> HTTPResponseMessage {
        switch result {
        case .success(let grant): tokenResponse(grant, accountField: accountField)
        case .failure: HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])
        }
    }

    static func tokenResponse(_ grant: AuthServer.Grant, accountField: String?) -> HTTPResponseMessage {
        var body: [String: JSONValue] = [
            "access_token": .string(grant.access.value),
            "expires_in": .int(Int(grant.lifetime)), "token_type": "Bearer",
        ]
        if let accountField { body[accountField] = .string(grant.account) }
        if let refresh = grant.refresh { body["refresh_token"] = .string(refresh.value) }
        return HTTPResponseMessage(status: 200, headers: ["content-type": "application/json", "cache-control": "no-store"],
                                   body: .object(body))
    }
}
