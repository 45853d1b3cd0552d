import ConformanceProtocol

/// How the world speaks to a client: the paths of its endpoints, the body each takes, the names of the fields
/// in those bodies, where a client learns its account id, and the token rules the server starts a case with.
/// A profile is a YAML file (`Specs/worlds/*.yaml`, docs/spec-format.md); `jsonV1` and `rfc6749` are the two
/// the suite ships, written out here too so a world without a spec still has them.
///
/// The world serves exactly the profile's endpoints: a request to another path is a 404. Sign-in and refresh
/// may share one path (an RFC 6749 token endpoint), told apart by `grant_type`.
public struct WorldProfile: Sendable, Hashable {
    /// How an endpoint's request body is written. The world reads either; this is what a client is told to send.
    public enum Encoding: String, Sendable, Hashable, CaseIterable {
        case json
        case form
    }

    /// Where the client learns the id of the account it signed in to.
    public enum AccountIDSource: Sendable, Hashable {
        /// A field of the token response.
        case tokenResponse(field: String)
        /// A field of the `GET` profile response (`/me`), read with the new access token.
        case profile(field: String)
    }

    /// The sign-in endpoint: the account's name and password in, a token pair out.
    public struct SignIn: Sendable, Hashable {
        public var path: String
        public var encoding: Encoding
        /// Set for an RFC 6749 password grant (`password`): the request carries `grant_type`, and the endpoint
        /// answers as RFC 6749 §5 says. Nil: the `json-v1` answers (a refused sign-in is 401 `invalid_credentials`).
        public var grantType: String?
        public var usernameField: String
        public var passwordField: String

        public init(path: String, encoding: Encoding, grantType: String?, usernameField: String, passwordField: String) {
            self.path = path
            self.encoding = encoding
            self.grantType = grantType
            self.usernameField = usernameField
            self.passwordField = passwordField
        }
    }

    /// The refresh endpoint: a refresh token in, a new access token (and, rotating, a new refresh token) out.
    public struct Refresh: Sendable, Hashable {
        public var path: String
        public var encoding: Encoding
        /// Set for an RFC 6749 refresh grant (`refresh_token`); nil for the `json-v1` answers.
        public var grantType: String?
        public var refreshTokenField: String

        public init(path: String, encoding: Encoding, grantType: String?, refreshTokenField: String) {
            self.path = path
            self.encoding = encoding
            self.grantType = grantType
            self.refreshTokenField = refreshTokenField
        }
    }

    /// The revocation endpoint: revokes the whole family of the token it is given.
    public struct Revocation: Sendable, Hashable {
        public var path: String
        /// `form` answers as RFC 7009 §2.2 (an empty 200); `json` as `json-v1` (`{"revoked": true}`).
        public var encoding: Encoding
        public var tokenField: String

        public init(path: String, encoding: Encoding, tokenField: String) {
            self.path = path
            self.encoding = encoding
            self.tokenField = tokenField
        }
    }

    /// The token rules a case starts with; a case's `configure` step still changes them.
    public struct TokenPolicy: Sendable, Hashable {
        /// Seconds an access token lives.
        public var accessTokenLifetime: Double
        /// Whether a refresh issues a new refresh token and retires the presented one.
        public var rotation: Bool
        /// Seconds after a rotation during which the previous refresh token is accepted once more.
        public var reuseInterval: Double

        public init(accessTokenLifetime: Double = 300, rotation: Bool = true, reuseInterval: Double = 0) {
            self.accessTokenLifetime = accessTokenLifetime
            self.rotation = rotation
            self.reuseInterval = reuseInterval
        }
    }

    public var name: String
    public var signIn: SignIn
    public var refresh: Refresh
    public var revocation: Revocation
    /// `GET` with the access token: the account's profile.
    public var profilePath: String
    /// Resources are served at `resourcePrefix + name`.
    public var resourcePrefix: String
    public var accountID: AccountIDSource
    public var tokens: TokenPolicy

    public init(name: String, signIn: SignIn, refresh: Refresh, revocation: Revocation, profilePath: String = "/me",
                resourcePrefix: String = "/resources/", accountID: AccountIDSource = .tokenResponse(field: "account_id"),
                tokens: TokenPolicy = TokenPolicy()) {
        self.name = name
        self.signIn = signIn
        self.refresh = refresh
        self.revocation = revocation
        self.profilePath = profilePath
        self.resourcePrefix = resourcePrefix
        self.accountID = accountID
        self.tokens = tokens
    }

    /// Today's JSON endpoints (`Specs/worlds/json-v1.yaml`): the default for in-process and message-mode adapters.
    public static let jsonV1 = WorldProfile(
        name: "json-v1",
        signIn: SignIn(path: "/auth/login", encoding: .json, grantType: nil, usernameField: "email", passwordField: "password"),
        refresh: Refresh(path: "/auth/refresh", encoding: .json, grantType: nil, refreshTokenField: "refresh_token"),
        revocation: Revocation(path: "/auth/revoke", encoding: .json, tokenField: "token"))

    /// An RFC 6749 token endpoint and RFC 7009 revocation (`Specs/worlds/rfc6749.yaml`): the default for
    /// loopback-HTTP adapters.
    public static let rfc6749 = WorldProfile(
        name: "rfc6749",
        signIn: SignIn(path: "/oauth/token", encoding: .form, grantType: "password", usernameField: "username",
                       passwordField: "password"),
        refresh: Refresh(path: "/oauth/token", encoding: .form, grantType: "refresh_token", refreshTokenField: "refresh_token"),
        revocation: Revocation(path: "/oauth/revoke", encoding: .form, tokenField: "token"))

    /// The profiles the suite ships, by name.
    public static let shipped: [WorldProfile] = [jsonV1, rfc6749]

    /// The paths that take a `POST`: sign-in, refresh and revocation.
    var postPaths: Set<String> { [signIn.path, refresh.path, revocation.path] }
}

extension WorldProfile {
    /// The token-response field that names the account, or nil when the client reads it from the profile.
    var accountIDField: String? {
        if case .tokenResponse(let field) = accountID { return field }
        return nil
    }
}

extension WorldProfile {
    /// The profile-response field that names the account.
    var profileAccountField: String {
        if case .profile(let field) = accountID { return field }
        return "account_id"
    }
}

extension WorldProfile {
    /// The profile as the runner's `welcome` describes it to the adapter.
    public var welcomeDescription: WorldDescription {
        let accountSource: (from: String, field: String) = switch accountID {
        case .tokenResponse(let field): ("tokenResponse", field)
        case .profile(let field): ("profile", field)
        }
        return WorldDescription(
            name: name,
            signIn: .init(path: signIn.path, encoding: signIn.encoding.rawValue, grantType: signIn.grantType,
                          fields: ["username": signIn.usernameField, "password": signIn.passwordField]),
            refresh: .init(path: refresh.path, encoding: refresh.encoding.rawValue, grantType: refresh.grantType,
                           fields: ["refreshToken": refresh.refreshTokenField]),
            revocation: .init(path: revocation.path, encoding: revocation.encoding.rawValue,
                              fields: ["token": revocation.tokenField]),
            profilePath: profilePath, resourcePrefix: resourcePrefix,
            accountIDFrom: accountSource.from, accountIDField: accountSource.field)
    }
}
