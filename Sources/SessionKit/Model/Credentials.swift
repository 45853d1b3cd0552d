/// The live token pair of one session, with its expiry on the monotonic clock.
struct Credentials: Sendable, Hashable, CustomStringConvertible {
    var accessToken: AccessToken
    var refreshToken: RefreshToken
    /// Increases by one with every new pair in this process; a 401 for an older version is retried
    /// with the current token instead of refreshing.
    var version: UInt64
    /// When the access token expires, on the monotonic clock; `nil` when unknown (restored from storage).
    var expiresAt: MonotonicInstant?
    /// When to refresh before use: ahead of `expiresAt` by the leeway, capped at half the lifetime.
    var refreshDue: MonotonicInstant?
    /// When the access token arrived; `nil` when unknown (restored from storage).
    var receivedAt: MonotonicInstant?

    /// Computes expiry from the server's `expires_in`, counted from `receivedAt` on the monotonic clock.
    /// The device wall clock plays no part, so clock skew cannot cause a refresh storm or a sign-out.
    init(grant: TokenGrant, previousRefreshToken: RefreshToken?, version: UInt64, receivedAt: MonotonicInstant, leeway: Duration) {
        accessToken = grant.accessToken
        refreshToken = grant.refreshToken ?? previousRefreshToken ?? RefreshToken("")
        self.version = version
        let lifetime = Duration.seconds(max(grant.expiresIn, 0))
        let margin = min(leeway, lifetime / 2)
        expiresAt = receivedAt + lifetime
        refreshDue = receivedAt + (lifetime - margin)
        self.receivedAt = receivedAt
    }

    init(accessToken: AccessToken, refreshToken: RefreshToken, version: UInt64) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.version = version
        expiresAt = nil
        refreshDue = nil
        receivedAt = nil
    }

    /// Whether a request at `now` should refresh first rather than send a token about to expire.
    func needsRefresh(at now: MonotonicInstant) -> Bool {
        guard let refreshDue else { return false }
        return now >= refreshDue
    }

    /// Whether background work at `now` should refresh: expiry unknown or within `window`.
    func needsBackgroundRefresh(at now: MonotonicInstant, window: Duration) -> Bool {
        guard let expiresAt else { return true }
        return now + window >= expiresAt
    }

    var description: String { "Credentials(v\(version), <redacted>)" }
}
