/// The pair the app holds, and stores as one secure-storage item.
struct Tokens: Codable, Sendable {
    var accessToken: String
    var refreshToken: String
    var account: String
}

/// The refresh was refused explicitly (400 invalid_grant): the only cause of a sign-out.
struct RefreshRejected: Error {}

/// Single-flight refresh: every caller that hits a 401 while a refresh runs awaits the same task. The work
/// (POST /auth/refresh, store the new pair, then hand it out) is the session's; this actor only makes sure
/// it runs once at a time.
actor TokenRefresher {
    nonisolated var unownedExecutor: UnownedSerialExecutor { clientExecutor.asUnownedSerialExecutor() }

    private var inFlight: Task<Tokens, any Error>?
    private let work: @ClientActor @Sendable () async throws -> Tokens

    init(work: @escaping @ClientActor @Sendable () async throws -> Tokens) {
        self.work = work
    }

    func refresh() async throws -> Tokens {
        if let inFlight { return try await inFlight.value }
        let task = Task(executorPreference: clientExecutor) { try await self.work() }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }
}
