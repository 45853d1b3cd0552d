/// Tunables of a `SessionClient`. The defaults are the reference behaviour.
public struct SessionConfiguration: Sendable {
    /// The server's HTTP paths.
    public var paths: APIPaths
    /// How the auth endpoints want their bodies, and where the account id comes from.
    public var dialect: APIDialect
    /// Accessibility of the stored session record. After-first-unlock, so background refresh works
    /// while the device is locked.
    public var credentialAccessibility: SecureStorageAccessibility
    /// The secure storage key of the session record (both tokens in one item).
    public var credentialStorageKey: String
    /// How long before expiry a request refreshes first (capped at half the token lifetime).
    /// `POST`, refresh token in, new pair out.
    public var refreshLeeway: Duration
    /// Background refresh renews a token that expires within this window.
    public var backgroundRefreshWindow: Duration
    /// Retries of a refresh that failed with a retryable failure.
    public var refreshBackoff: BackoffPolicy
    /// Retries of launch when storage is locked or the server unreachable (unbounded attempts, bounded delay).
    public var restoreBackoff: BackoffPolicy
    /// Retries of a queued remote revocation.
    public var revocationBackoff: BackoffPolicy
    /// Which cached resources may appear before validation or while offline.
    public var offlinePolicy: OfflinePolicy
    /// Minimum sign-in password length, in characters.
    public var minimumPasswordLength: Int
    /// How long a refresh may stay unanswered, on the injected clock, before its waiters fail as a timeout: a
    /// refresh the server never answers is then deferred and backed off like any timeout. Other exchanges keep
    /// the transport's own timeout. Nil leaves the refresh to the transport too.
    public var requestDeadline: Duration?
    /// Deliberate defects, for the suite's known-bad variants only (docs/known-bad.md). Empty: the reference.
    package var defects: Set<SessionKitDefect> = []

    /// Creates a configuration; every default is the reference behaviour.
    public init(
        paths: APIPaths = APIPaths(),
        dialect: APIDialect = .jsonV1,
        credentialAccessibility: SecureStorageAccessibility = .afterFirstUnlock,
        credentialStorageKey: String = "session.record",
        refreshLeeway: Duration = .seconds(30),
        backgroundRefreshWindow: Duration = .seconds(300),
        refreshBackoff: BackoffPolicy = BackoffPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(32), maximumAttempts: 5),
        restoreBackoff: BackoffPolicy = BackoffPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), maximumAttempts: nil),
        revocationBackoff: BackoffPolicy = BackoffPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(300), maximumAttempts: 6),
        offlinePolicy: OfflinePolicy = .none,
        minimumPasswordLength: Int = 8,
        requestDeadline: Duration? = .seconds(30)
    ) {
        self.paths = paths
        self.dialect = dialect
        self.credentialAccessibility = credentialAccessibility
        self.credentialStorageKey = credentialStorageKey
        self.refreshLeeway = refreshLeeway
        self.backgroundRefreshWindow = backgroundRefreshWindow
        self.refreshBackoff = refreshBackoff
        self.restoreBackoff = restoreBackoff
        self.revocationBackoff = revocationBackoff
        self.offlinePolicy = offlinePolicy
        self.minimumPasswordLength = minimumPasswordLength
        self.requestDeadline = requestDeadline
    }
}

/// The HTTP paths of the auth and API server (see docs/reference-implementation.md for the wire format).
public struct APIPaths: Sendable, Hashable {
    /// `POST`, email and password in, token pair and account out.
    public var login: String
    public var refresh: String
    /// `POST`, refresh token in (RFC 7009).
    public var revoke: String
    /// `GET` with the access token, the account profile out.
    public var profile: String
    /// Resources are fetched at `resourcePrefix + name`.
    public var resourcePrefix: String

    /// Creates the paths; the defaults are the documented API.
    public init(
        login: String = "/auth/login",
        refresh: String = "/auth/refresh",
        revoke: String = "/auth/revoke",
        profile: String = "/me",
        resourcePrefix: String = "/resources/"
    ) {
        self.login = login
        self.refresh = refresh
        self.revoke = revoke
        self.profile = profile
        self.resourcePrefix = resourcePrefix
    }
}
