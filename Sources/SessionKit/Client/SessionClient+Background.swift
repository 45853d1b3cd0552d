/// Background refresh (BGAppRefreshTask, WorkManager): renews tokens that are about to expire. Tokens are
/// stored after-first-unlock so this works on a locked device; storage that still cannot be used defers
/// the refresh and never signs out.
extension SessionClient {
    /// Refreshes the token pair if it expires within `backgroundRefreshWindow` (or its expiry is unknown).
    /// Joins a refresh already in flight; never signs out except on an explicit server rejection.
    public func performBackgroundRefresh() async -> BackgroundRefreshResult {
        let now = expiryClockNow()
        if let result = machine.backgroundRefreshNeed(now: now, window: configuration.backgroundRefreshWindow) {
            logger.log(.info, "background-refresh.skipped", ["result": String(describing: result)])
            return result
        }
        let result: BackgroundRefreshResult
        switch await awaitAdmission({ machine, waiter in machine.backgroundRefresh(waiter) }) {
        case .success:
            result = .refreshed
        case .failure(let error):
            switch error.code {
            case .sessionEnded: result = .sessionEnded
            case .notAuthenticated: result = .notSignedIn
            default: result = .deferred(error.failureClass ?? .unexpectedResponse)
            }
        }
        logger.log(.info, "background-refresh.finished", ["result": String(describing: result)])
        return result
    }
}
