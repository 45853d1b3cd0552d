/// How the server's auth endpoints want their bodies, and where it names the account: `jsonV1` (JSON bodies,
/// `email`, the account in the token response) or `rfc6749` (form-encoded grants to one token endpoint,
/// RFC 7009 revocation). The paths are in `APIPaths`; the two together follow any world profile of the suite.
public struct APIDialect: Sendable, Hashable {
    /// A request body's encoding.
    public enum Encoding: String, Sendable, Hashable {
        /// `application/json`, an object of strings.
        case json
        /// `application/x-www-form-urlencoded` (RFC 6749 §3.2, RFC 7009 §2.1).
        case form
    }

    /// Where the server names the account a sign-in is for.
    public enum AccountIDSource: Sendable, Hashable {
        /// A field of the token response.
        case tokenResponse(field: String)
        /// A field of the profile response, fetched with the new access token right after sign-in.
        case profile(field: String)
    }

    public var signInEncoding: Encoding
    /// Sent as `grant_type` with sign-in when set (`password` for RFC 6749 §4.3).
    public var signInGrantType: String?
    public var usernameField: String
    public var passwordField: String
    public var refreshEncoding: Encoding
    /// Sent as `grant_type` with every refresh (RFC 6749 §6).
    public var refreshGrantType: String
    public var refreshTokenField: String
    public var revocationEncoding: Encoding
    public var revocationTokenField: String
    public var accountID: AccountIDSource

    public init(signInEncoding: Encoding, signInGrantType: String?, usernameField: String, passwordField: String,
                refreshEncoding: Encoding, refreshGrantType: String = "refresh_token", refreshTokenField: String,
                revocationEncoding: Encoding, revocationTokenField: String,
                accountID: AccountIDSource = .tokenResponse(field: "account_id")) {
        self.signInEncoding = signInEncoding
        self.signInGrantType = signInGrantType
        self.usernameField = usernameField
        self.passwordField = passwordField
        self.refreshEncoding = refreshEncoding
        self.refreshGrantType = refreshGrantType
        self.refreshTokenField = refreshTokenField
        self.revocationEncoding = revocationEncoding
        self.revocationTokenField = revocationTokenField
        self.accountID = accountID
    }

    /// JSON bodies: `{email, password}`, `{grant_type, refresh_token}`, `{token, token_type_hint}`.
    public static let jsonV1 = APIDialect(
        signInEncoding: .json, signInGrantType: nil, usernameField: "email", passwordField: "password",
        refreshEncoding: .json, refreshTokenField: "refresh_token", revocationEncoding: .json, revocationTokenField: "token")

    /// RFC 6749 password and refresh grants, form-encoded, and RFC 7009 revocation.
    public static let rfc6749 = APIDialect(
        signInEncoding: .form, signInGrantType: "password", usernameField: "username", passwordField: "password",
        refreshEncoding: .form, refreshTokenField: "refresh_token", revocationEncoding: .form, revocationTokenField: "token")
}

extension APIPaths {
    /// The paths of an RFC 6749 server: one token endpoint, RFC 7009 revocation.
    public static let rfc6749 = APIPaths(login: "/oauth/token", refresh: "/oauth/token", revoke: "/oauth/revoke")
}

extension APIDialect {
    var tokenResponseAccountField: String? {
        if case .tokenResponse(let field) = accountID { return field }
        return nil
    }

    var profileAccountField: String {
        if case .profile(let field) = accountID { return field }
        return "account_id"
    }
}
