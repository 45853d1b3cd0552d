/// What `SessionClient.performBackgroundRefresh()` did.
public enum BackgroundRefreshResult: Sendable, Hashable {
    /// The token pair was refreshed and persisted.
    case refreshed
    /// The access token is still fresh.
    case notNeeded
    /// No session to refresh.
    case notSignedIn
    /// Could not refresh now (locked storage, offline, restoring); the session is kept.
    case deferred(FailureClass)
    /// The server rejected the session while refreshing.
    case sessionEnded
}
