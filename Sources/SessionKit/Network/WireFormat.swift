import Foundation

/// JSON bodies of the auth and API server (documented in docs/reference-implementation.md).
enum WireFormat {
    struct LoginRequest: Encodable {
        var email: String
        var password: String
    }

    struct RefreshRequest: Encodable {
        var grant_type = "refresh_token"
        var refresh_token: String
    }

    struct RevokeRequest: Encodable {
        var token: String
        var token_type_hint = "refresh_token"
    }

    /// Login and refresh responses. `refresh_token` may be absent when the server does not rotate.
    struct Grant: Decodable {
        var access_token: String
        var refresh_token: String?
        var expires_in: Int
        var account_id: String?
    }

    struct Profile: Decodable {
        var account_id: String
        var email: String
        var display_name: String
    }

    /// An OAuth error body, `{"error": "invalid_grant"}`.
    struct OAuthError: Decodable {
        var error: String
    }

    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)) ?? Data()
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
        try? JSONDecoder().decode(type, from: data)
    }

    static func grant(from data: Data) -> TokenGrant? {
        guard let body = decode(Grant.self, from: data), !body.access_token.isEmpty else { return nil }
        return TokenGrant(
            accessToken: AccessToken(body.access_token),
            refreshToken: body.refresh_token.flatMap { $0.isEmpty ? nil : RefreshToken($0) },
            expiresIn: body.expires_in,
            account: body.account_id.map(AccountID.init(rawValue:))
        )
    }

    static func oauthError(from data: Data) -> String? {
        decode(OAuthError.self, from: data)?.error
    }
}
