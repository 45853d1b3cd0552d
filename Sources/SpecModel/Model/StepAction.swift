/// Who signs in: one of the world's accounts, or raw form input (to test validation and wrong passwords).
public enum Credentials: Sendable, Hashable {
    case account(String)
    case raw(email: String, password: String)
}

/// When a `kill` step ends the adapter process. The two storage points land on the client's next storage
/// change: a secure-storage or preferences `set` or `delete`, never a `get`. A point that has not landed by the
/// end of the first later step that drives the client disarms and makes the case inconclusive
/// (docs/spec-format.md, the `kill` step).
public enum KillPoint: String, Sendable, Hashable, CaseIterable {
    /// At once; with no client running, a no-op noted in the trace. It also disarms an armed point.
    case now
    /// When the client next sends a storage change; the change is discarded.
    case beforeStorageWrite
    /// Right after the client's next storage change took effect, before the client hears back.
    case afterStorageWrite
}

/// A fault the world injects into the next calls to an endpoint.
public enum FaultKind: String, Sendable, Hashable, CaseIterable {
    /// 400 `{"error":"invalid_grant"}`.
    case invalidGrant
    /// 401 `{"error":"session_revoked"}` on refresh, or the session revoked server-side.
    case revoked
    /// 401 `{"error":"invalid_token"}`: the server no longer accepts the access token, as when it expired early.
    case expiredToken
    /// 503.
    case serverError
    /// No response; the server never saw the request.
    case timeout
    /// The device is offline for this call.
    case offline
    /// The server processed the request, then the response was lost (an indefinite outcome).
    case lost
    /// 429 `{"error":"too_many_requests"}` with `Retry-After: 1`: the server asks the client to slow down. No
    /// rejection: the session stands.
    case rateLimited
}

/// A fault of the device's storage, for `storageFault`.
public enum StorageFaultKind: String, Sendable, Hashable, CaseIterable {
    /// The next secure-storage changes (`set` or `delete`) fail with the `writeFailed` error: nothing is written
    /// or deleted. Not a locked device: reads still work and the failure says nothing about the lock state.
    case writeFailure
    /// The next preferences changes (`set` or `delete`: the app's plain storage, where caches and notes live)
    /// fail with the `writeFailed` error: nothing is written or deleted; reads still work.
    case preferencesWriteFailure
}

/// Settings of the simulated auth server.
public struct ServerSettings: Sendable, Hashable {
    /// Seconds during which the immediately previous refresh token is still accepted once.
    public var reuseInterval: Double?
    /// Seconds an access token lives.
    public var accessTokenLifetime: Double?

    public init(reuseInterval: Double? = nil, accessTokenLifetime: Double? = nil) {
        self.reuseInterval = reuseInterval
        self.accessTokenLifetime = accessTokenLifetime
    }
}

/// A seeded schedule of world choices at each barrier: the order a batch of replies is sent in, and which
/// HTTP replies are held over to the next round.
/// How a `schedule` step orders each batch: shuffled, or by task priorities with a few change points (PCT).
public enum ScheduleStrategy: String, Sendable, CaseIterable {
    case random
    case pct
}

public struct BarrierScheduleSettings: Sendable, Hashable {
    /// The seed of the schedule's own random stream.
    public var seed: UInt64
    /// Percent (0 to 100) of HTTP replies held over one round.
    public var delayPercent: Int

    /// nil: each batch is shuffled (`strategy: random`); a number: priority-based (`strategy: pct`) with that many
    /// priority change points (`changes`).
    public var priorityChanges: Int?

    public static let defaultDelayPercent = 25
    public static let defaultPriorityChanges = 2

    public init(seed: UInt64, delayPercent: Int = BarrierScheduleSettings.defaultDelayPercent, priorityChanges: Int? = nil) {
        self.seed = seed
        self.delayPercent = delayPercent
        self.priorityChanges = priorityChanges
    }
}

/// A count of command results, for `expect: { results: ... }`.
public struct ResultExpectation: Sendable, Hashable {
    public var ok: Int?
    public var failed: Int?
    /// Error code to how many commands ended with it.
    public var codes: [String: Int]
}

/// A count of HTTP requests whose path matches, for `expect: { requests: ... }`.
public struct RequestExpectation: Sendable, Hashable {
    /// A path; a trailing `*` matches any suffix.
    public var path: String
    public var count: Int?
    public var atLeast: Int?
    public var atMost: Int?
}

/// What an `expect` or `require` step checks. Counts are over the step's window: what happened since the
/// last step that was neither `expect` nor `require` and followed such a check (consecutive checks share a window).
public struct Expectation: Sendable {
    public var state: Located<String>?
    public var results: ResultExpectation?
    public var requests: [RequestExpectation] = []
    public var held: Int?
    public var prompts: Int?
    public var shown: [String] = []
    public var notShown: [String] = []
    public var transitions: [Located<String>]?
    public var tokensStored: Bool?
    public var revoked: String?
    /// Only in the variants of these triggers (empty: in every variant).
    public var under: [Located<RefreshTrigger>] = []
    /// `expect` only: the requirements this step verifies, and so the only ones a failure of it is charged to.
    public var verifies: [Located<String>] = []
}

/// What one step of a case does.
public enum StepAction: Sendable {
    case launch
    case kill(KillPoint)
    case signIn(Credentials)
    case switchAccount(Credentials)
    case signOut
    case request(resource: String, count: Int)
    /// An OS event: background, foreground, lock, unlock, online, offline.
    case system(String)
    case advance(seconds: Double)
    case skewClock(seconds: Double)
    /// A refresh becomes due, by the trigger of the case's variant (`RefreshTrigger`).
    case refreshDue
    case fault(path: String, kind: FaultKind, times: Int)
    /// The device's secure storage (or, by `kind`, its preferences) fails its next `times` changes.
    case storageFault(kind: StorageFaultKind, times: Int)
    case hold(path: String)
    case release(path: String)
    case configure(ServerSettings)
    case revoke(account: String)
    /// The device restarts: the process dies, the device is locked and not yet unlocked since boot.
    case reboot
    case barrier
    /// From here on, the world answers each batch of concurrent effects in an order drawn from this schedule
    /// instead of the canonical one (`explore` generates these; docs/exploration.md).
    case schedule(BarrierScheduleSettings)
    /// A check whose failure is charged to the requirements it names in `for`.
    case expect(Expectation)
    /// A precondition: when it does not hold, the case is inconclusive and charges nothing.
    case require(Expectation)

    /// The checks, `expect` or `require`, and nothing else.
    public var expectation: Expectation? {
        switch self {
        case .expect(let expectation), .require(let expectation): expectation
        default: nil
        }
    }
}
