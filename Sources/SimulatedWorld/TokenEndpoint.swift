import ConformanceProtocol
import Foundation
import JSONCore

/// The RFC 6749 token endpoint (§3.2, §4.3 password grant, §6 refresh) and RFC 7009 revocation, for public
/// clients: form-encoded bodies as the RFCs require, JSON objects also accepted.
enum TokenEndpoint {
    /// The scope every grant carries (the world has one).
    static let scope = "session"

    /// Answers a request to the profile's sign-in or refresh path where that endpoint takes a `grant_type`.
    static func respond(to request: HTTPRequestMessage, profile: WorldProfile, auth: inout AuthServer, at time: Double) -> HTTPResponseMessage {
        guard request.method.uppercased() == "POST" else {
            return error(400, "invalid_request", "the token endpoint takes POST only (RFC 6749 §3.2)")
        }
        let parameters: RequestParameters
        switch RequestParameters.parse(request) {
        case .success(let parsed): parameters = parsed
        case .failure(let problem): return error(400, "invalid_request", problem.description)
        }
        if let refusal = clientRefusal(request, parameters) { return refusal }
        guard let grantType = parameters["grant_type"] else {
            return error(400, "invalid_request", "grant_type is missing")
        }
        let signIn = profile.signIn
        let refresh = profile.refresh
        if request.path == signIn.path, grantType == signIn.grantType {
            guard let username = parameters[signIn.usernameField], let password = parameters[signIn.passwordField] else {
                return error(400, "invalid_request", "a password grant needs \(signIn.usernameField) and \(signIn.passwordField)")
            }
            switch auth.login(email: username, password: password, at: time) {
            case .success(let grant): return success(grant, scope: parameters["scope"], accountField: profile.accountIDField)
            case .failure: return error(400, "invalid_grant", "the resource owner credentials are invalid")
            }
        }
        if request.path == refresh.path, grantType == refresh.grantType {
            guard let token = parameters[refresh.refreshTokenField] else {
                return error(400, "invalid_request", "a refresh grant needs \(refresh.refreshTokenField)")
            }
            switch auth.refresh(token, at: time) {
            case .success(let grant): return success(grant, scope: parameters["scope"], accountField: profile.accountIDField)
            case .failure: return error(400, "invalid_grant", "the refresh token is invalid, expired, rotated or revoked")
            }
        }
        return error(400, "unsupported_grant_type", "grant_type '\(grantType)' is not supported")
    }

    /// RFC 7009 §2.1-2.2: revokes the token's whole family; an unknown token is still a 200.
    static func revoke(_ request: HTTPRequestMessage, tokenField: String, auth: inout AuthServer) -> HTTPResponseMessage {
        guard request.method.uppercased() == "POST" else {
            return error(400, "invalid_request", "the revocation endpoint takes POST only (RFC 7009 §2.1)")
        }
        let parameters: RequestParameters
        switch RequestParameters.parse(request) {
        case .success(let parsed): parameters = parsed
        case .failure(let problem): return error(400, "invalid_request", problem.description)
        }
        if let refusal = clientRefusal(request, parameters) { return refusal }
        guard let token = parameters[tokenField] else { return error(400, "invalid_request", "\(tokenField) is missing") }
        // `token_type_hint` only speeds up a lookup (§2.1): every token is found whatever the hint says.
        auth.revoke(token)
        return HTTPResponseMessage(status: 200, headers: ["cache-control": "no-store"], body: .null)
    }

    /// RFC 6749 §2.3 for public clients: `client_id` in the body or HTTP Basic, any id; malformed Basic
    /// credentials, or two different ids, are `invalid_client` (401 with a Basic challenge, §5.2).
    static func clientRefusal(_ request: HTTPRequestMessage, _ parameters: RequestParameters) -> HTTPResponseMessage? {
        guard let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("basic ") else {
            return nil
        }
        let encoded = authorization.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else {
            return clientError("malformed HTTP Basic client credentials")
        }
        let clientID = String(text[..<colon]).removingPercentEncoding ?? ""
        guard !clientID.isEmpty else { return clientError("HTTP Basic credentials without a client id") }
        if let inBody = parameters["client_id"], inBody != clientID {
            return clientError("client_id in the body differs from the HTTP Basic client")
        }
        return nil
    }

    /// `accountField`: the response field that names the account, when the profile puts it there.
    static func success(_ grant: AuthServer.Grant, scope requested: String?, accountField: String?) -> HTTPResponseMessage {
        var body: [String: JSONValue] = [
            "access_token": .string(grant.access.value), "token_type": "Bearer",
            "expires_in": .int(Int(grant.lifetime)), "scope": .string(requested ?? scope),
        ]
        if let accountField { body[accountField] = .string(grant.account) }
        if let refresh = grant.refresh { body["refresh_token"] = .string(refresh.value) }
        return HTTPResponseMessage(status: 200, headers: noStore, body: .object(body))
    }

    static func error(_ status: Int, _ code: String, _ description: String) -> HTTPResponseMessage {
        HTTPResponseMessage(status: status, headers: noStore,
                            body: ["error": .string(code), "error_description": .string(description)])
    }

    static func clientError(_ description: String) -> HTTPResponseMessage {
        var response = error(401, "invalid_client", description)
        response.headers["www-authenticate"] = #"Basic realm="world""#
        return response
    }

    /// RFC 6749 §5.1: token responses are not cached.
    static let noStore = ["content-type": "application/json", "cache-control": "no-store", "pragma": "no-cache"]
}
