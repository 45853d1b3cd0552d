import SpecModel

/// What an aimed run of a guided exploration builds on purpose, among its random actions: a situation the earlier
/// runs reached least, or a requirement's path.
public enum ExploreAim: Sendable, Hashable, CustomStringConvertible {
    case situation(Situation)
    case path(RequirementPath)

    /// A situation's name or a path's: the part of a run ID after `@`.
    public init?(_ name: String) {
        if let situation = Situation(rawValue: name) {
            self = .situation(situation)
        } else if let path = RequirementPath(rawValue: name) {
            self = .path(path)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .situation(let situation): situation.rawValue
        case .path(let path): path.rawValue
        }
    }
}

/// An order of events in which a violation of a requirement can show and which reaching its situation alone does
/// not give (docs/violation-matrix.md): a late response is A's data only while A's revocation has not reached the
/// server; a retry without limit shows only once the clock lets its pauses pass. A guided exploration aims a run at
/// each in turn, whatever the coverage, so a defect that needs one is met within a few hundred runs.
public enum RequirementPath: String, Sendable, Hashable, CaseIterable {
    /// A's response held across the switch to B (or a sign-out) while A's revocation is held too, so it carries A's data.
    case lateResponseToNextSession = "late-response-to-next-session"
    /// A's refresh held across the switch (or sign-out), A's revocation held, so its result is a valid pair; then a restart.
    case lateRefreshToNextSession = "late-refresh-to-next-session"
    /// A request refused again after its retry, with the clock moving in small steps afterwards.
    case retryRefusedAgain = "retry-refused-again"
    /// Refreshes that fail for a retryable reason while the clock moves for a minute, then the outage ends.
    case outageOverTime = "refresh-outage-over-time"
    /// A sign-in while the device clock is a year ahead, the clock back, and the server refusing the token.
    case clockAheadThenBack = "clock-ahead-then-back"
    /// A kill at a storage write of a refresh the clock started (the token expired), then a restart.
    case killInExpiryRefreshStore = "kill-in-expiry-refresh-store"
    /// A restart with the access token expired and secure storage refusing the refreshed pair the restore gets.
    case restoreRefreshNotStored = "restore-refresh-not-stored"
    /// A restart whose `GET /me` refuses the stored access token and then the refreshed one.
    case restoreTokenRefusedTwice = "restore-token-refused-twice"

    /// The requirements whose violations the path is there to show.
    public var requirements: [String] {
        switch self {
        case .lateResponseToNextSession: ["EPOCH-DISCARD-STALE-RESPONSES"]
        case .lateRefreshToNextSession: ["EPOCH-DISCARD-STALE-REFRESH"]
        case .retryRefusedAgain: ["REFRESH-RETRY-ONCE"]
        case .outageOverTime: ["REFRESH-RETRYABLE-BACKOFF"]
        case .clockAheadThenBack: ["CLOCK-SKEW-TOLERANT"]
        case .killInExpiryRefreshStore: ["PROCESS-DEATH-SAFE", "ROTATION-OLD-TOKEN-NEVER-REUSED"]
        case .restoreRefreshNotStored: ["REFRESH-PERSIST-BEFORE-USE"]
        case .restoreTokenRefusedTwice: ["REFRESH-RETRY-ONCE"]
        }
    }
}
