import ConformanceProtocol
import JSONCore

/// What a request asks of the world, whatever dialect it speaks.
public enum LogicalEndpoint: String, Sendable, Hashable, CaseIterable {
    case login, refresh, revoke, profile, resource

    /// The path cases use for this endpoint (`hold`, `fault`, `requests`): the `json-v1` path. A case pattern
    /// matches a request when it matches the request's path or this alias, so cases run unchanged under every
    /// world profile.
    public var casePath: String? {
        switch self {
        case .login: "/auth/login"
        case .refresh: "/auth/refresh"
        case .revoke: "/auth/revoke"
        case .profile: "/me"
        case .resource: nil
        }
    }
}

extension WorldProfile {
    /// The endpoint a request addresses under this profile, or nil for a path the profile does not serve. A
    /// request to an RFC 6749 token endpoint is a login or a refresh by its `grant_type`, or nil when that
    /// cannot be read or names neither.
    public func logical(_ request: HTTPRequestMessage) -> LogicalEndpoint? {
        let method = request.method.uppercased()
        let path = request.path
        if method == "GET" {
            if path == profilePath { return .profile }
            if path.hasPrefix(resourcePrefix) || path.hasPrefix("/accounts/") { return .resource }
            return nil
        }
        guard method == "POST" else { return nil }
        if path == revocation.path { return .revoke }
        let grantType = { (try? RequestParameters.parse(request).get())?["grant_type"] }
        if path == signIn.path, signIn.grantType == nil || signIn.grantType == grantType() { return .login }
        if path == refresh.path, refresh.grantType == nil || refresh.grantType == grantType() { return .refresh }
        return nil
    }

    /// The paths a case pattern is matched against for this request: its own, and its logical alias.
    public func casePaths(_ request: HTTPRequestMessage) -> [String] {
        guard let alias = logical(request)?.casePath, alias != request.path else { return [request.path] }
        return [request.path, alias]
    }

    /// The token a refresh or revocation presents, in a JSON or form body, by this profile's field names.
    public func presentedToken(_ request: HTTPRequestMessage) -> String? {
        guard let parameters = try? RequestParameters.parse(request).get() else { return nil }
        return parameters[refresh.refreshTokenField] ?? parameters[revocation.tokenField]
    }
}

/// Both shipped dialects at once, for readers of a trace that do not know the profile it ran under: the
/// `json-v1` endpoints (`/auth/login`, `/auth/refresh`, `/auth/revoke`) and the RFC 6749 token endpoint with
/// RFC 7009 revocation (`/oauth/token`, `/oauth/revoke`). The world itself serves one profile (`WorldProfile`).
public struct WorldEndpoints: Sendable, Hashable {
    public init() {}

    public static let standard = WorldEndpoints()

    /// The endpoint a request addresses under either shipped profile.
    public func logical(_ request: HTTPRequestMessage) -> LogicalEndpoint? {
        WorldProfile.jsonV1.logical(request) ?? WorldProfile.rfc6749.logical(request)
    }

    /// The paths a case pattern is matched against for this request: its own, and its logical alias.
    public func casePaths(_ request: HTTPRequestMessage) -> [String] {
        guard let alias = logical(request)?.casePath, alias != request.path else { return [request.path] }
        return [request.path, alias]
    }

    /// The refresh token a refresh or revocation presents, in a JSON or form body.
    public static func presentedToken(_ request: HTTPRequestMessage) -> String? {
        guard let parameters = try? RequestParameters.parse(request).get() else { return nil }
        return parameters["refresh_token"] ?? parameters["token"]
    }
}

extension WorldProfile {
    /// The request as the `json-v1` profile would carry it: an auth request at its `json-v1` path, with a JSON
    /// object body whose fields have the `json-v1` names (`email`, `password`, `refresh_token`, `token`), every
    /// other parameter kept. What the runner's checks read, so each is written once for every profile. A
    /// request that is not an auth request, or whose body cannot be read, is returned as it is.
    public func canonicalRequest(_ request: HTTPRequestMessage) -> HTTPRequestMessage {
        guard let endpoint = logical(request), let alias = endpoint.casePath else { return request }
        // Built by assignment, never a dictionary literal: two fields of one name (a profile lint refuses, given
        // in code) must not trap.
        var renames: [String: String] = [:]
        switch endpoint {
        case .login:
            renames[signIn.usernameField] = "email"
            renames[signIn.passwordField] = "password"
        case .refresh: renames[refresh.refreshTokenField] = "refresh_token"
        case .revoke: renames[revocation.tokenField] = "token"
        case .profile, .resource:
            var moved = request
            moved.path = alias
            return moved
        }
        guard let parameters = try? RequestParameters.parse(request).get() else { return request }
        var body: [String: JSONValue] = [:]
        for (name, value) in parameters.values where renames[name] == nil {
            body[name] = .string(value)
        }
        for (name, value) in parameters.values {
            if let canonical = renames[name] { body[canonical] = .string(value) }
        }
        var headers = request.headers.filter { $0.key.lowercased() != "content-type" }
        headers["content-type"] = "application/json"
        return HTTPRequestMessage(method: request.method, path: alias, headers: headers, body: .object(body))
    }
}
