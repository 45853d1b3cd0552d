import Foundation

/// Bodies of the auth and API server (documented in docs/reference-implementation.md): requests as JSON or
/// form-encoded (`APIDialect`), responses as JSON.
enum WireFormat {
    /// Login and refresh responses. `refresh_token` may be absent when the server does not rotate.
    struct Grant: Decodable {
        var access_token: String
        var refresh_token: String?
        var expires_in: Int
    }

    struct Profile: Decodable {
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

    /// `accountField`: the response field naming the account, when the dialect puts it there.
    static func grant(from data: Data, accountField: String?) -> TokenGrant? {
        guard let body = decode(Grant.self, from: data), !body.access_token.isEmpty else { return nil }
        return TokenGrant(
            accessToken: AccessToken(body.access_token),
            refreshToken: body.refresh_token.flatMap { $0.isEmpty ? nil : RefreshToken($0) },
            expiresIn: body.expires_in,
            account: accountField.flatMap { stringField($0, in: data) }.map(AccountID.init(rawValue:))
        )
    }

    static func profile(from data: Data, accountField: String) -> AccountProfile? {
        guard let body = decode(Profile.self, from: data), let account = stringField(accountField, in: data) else { return nil }
        return AccountProfile(accountID: AccountID(account), email: body.email, displayName: body.display_name)
    }

    /// A string field of a JSON object, by a name known only at run time.
    private static func stringField(_ name: String, in data: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?[name] as? String
    }

    /// `application/x-www-form-urlencoded`, fields sorted by name so the same request gives the same bytes.
    static func formEncode(_ fields: [String: String]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        func escape(_ text: String) -> String {
            // Only ASCII letters and digits stay as they are; everything else is percent-encoded as UTF-8.
            text.unicodeScalars.map { scalar in
                if scalar.isASCII, allowed.contains(scalar) { return String(scalar) }
                if scalar == " " { return "+" }
                return String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
            }.joined()
        }
        let text = fields.sorted { $0.key < $1.key }.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&")
        return Data(text.utf8)
    }

    /// An HTTP `Date` (IMF-fixdate, RFC 9110 section 5.6.7), such as `Thu, 01 Jan 2026 00:00:00 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }

    static func oauthError(from data: Data) -> String? {
        decode(OAuthError.self, from: data)?.error
    }
}
