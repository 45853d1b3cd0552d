import ConformanceProtocol

/// What a request asks of the world, whatever dialect it speaks.
public enum LogicalEndpoint: String, Sendable, Hashable, CaseIterable {
    case login, refresh, revoke, profile, resource

    /// The path cases use for this endpoint (`hold`, `fault`, `requests`): the `json-v1` path. A case pattern
    /// matches a request when it matches the request's path or this alias, so cases run unchanged against a
    /// client that signs in and refreshes at an RFC 6749 token endpoint.
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

/// The paths the world serves. Both dialects are served at once: the `json-v1` endpoints (`/auth/login`,
/// `/auth/refresh`, `/auth/revoke`, JSON bodies) and the RFC 6749 token endpoint with RFC 7009 revocation
/// (`/oauth/token`, `/oauth/revoke`, form or JSON bodies).
public struct WorldEndpoints: Sendable, Hashable {
    public var login = "/auth/login"
    public var refresh = "/auth/refresh"
    public var revoke = "/auth/revoke"
    /// RFC 6749 §3.2: `grant_type=password` signs in, `grant_type=refresh_token` refreshes.
    public var token = "/oauth/token"
    /// RFC 7009 §2.
    public var revocation = "/oauth/revoke"
    public var profile = "/me"
    public var resourcePrefix = "/resources/"

    public init() {}

    public static let standard = WorldEndpoints()

    /// The endpoint a request addresses, or nil for a path the world does not serve. A token-endpoint
    /// request is a login or a refresh by its `grant_type`, or nil when that cannot be read.
    public func logical(_ request: HTTPRequestMessage) -> LogicalEndpoint? {
        let method = request.method.uppercased()
        switch (method, request.path) {
        case ("POST", login): return .login
        case ("POST", refresh): return .refresh
        case ("POST", revoke), ("POST", revocation): return .revoke
        case ("POST", token):
            switch (try? RequestParameters.parse(request).get())?["grant_type"] {
            case "password": return .login
            case "refresh_token": return .refresh
            default: return nil
            }
        case ("GET", profile): return .profile
        case ("GET", let path) where path.hasPrefix(resourcePrefix) || path.hasPrefix("/accounts/"): return .resource
        default: return nil
        }
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
