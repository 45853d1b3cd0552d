import ConformanceProtocol
import SpecModel
import SimulatedWorld

/// What an oracle reads: the indexed trace, the world as it ended (token vault, content owners),
/// the state machine, and what the adapter declared.
struct OracleContext {
    let index: TraceIndex
    let trace: Trace
    let world: World
    let machine: StateMachine
    let capabilities: [String]
    let offlineResources: [String]
    /// The client's stderr, scanned like its logs.
    let capturedLog: String

    func step(of event: Int) -> Int {
        trace.events.indices.contains(event - 1) ? trace.events[event - 1].step : 0
    }

    func finding(_ requirements: [String], _ oracle: String, _ message: String, _ evidence: [Int]) -> Finding {
        Finding(requirements: requirements, check: "oracle:\(oracle)", message: world.vault.redact(message),
                evidence: evidence, step: step(of: evidence.first ?? 0))
    }

    /// Handles for the tokens a text carries, for messages.
    func handles(in text: String) -> String {
        world.vault.contained(in: text).map(\.handle).joined(separator: ", ")
    }
}

/// A check run on every trace of every case. Each names the requirements its failures are charged to, and
/// the invariants of Specs/state-machine.yaml it checks (lint fails when an invariant has no oracle).
protocol Oracle: Sendable {
    var id: String { get }
    var requirements: [String] { get }
    var invariants: [String] { get }
    func check(_ context: OracleContext) -> [Finding]
}

/// Every oracle, in the order their findings are reported.
public enum Oracles {
    static let all: [any Oracle] = [
        TransitionsFollowStateMachine(),
        SingleRefreshInFlight(),
        NoTokenInClientOutput(),
        NewTokensPersistedBeforeUse(),
        RotatedRefreshTokenNeverSent(),
        NoRequestWithEndedSessionToken(),
        StaleRefreshResultDiscarded(),
        ContentBelongsToCurrentAccount(),
        RequestRetriedAtMostOnce(),
        RefreshBypassesUnauthorizedHandling(),
        OneSignInPromptPerSignOut(),
        OnlyExplicitRejectionSignsOut(),
        NoSilentSignInAfterRejection(),
        RestoreValidatedWithServer(),
        BackgroundTokensAfterFirstUnlock(),
        RestoreReadsCredentialsFirst(),
        LaunchChecksStoredSession(),
        StaleUnauthorizedRetriedWithLatestToken(),
        RetriesWaitForTheRefresh(),
        EndedSessionCredentialsCleared(),
        SignInInputValidatedFirst(),
        EndedSessionNeverResurrected(),
        EveryCommandAnsweredOnce(),
        EndedAccountLeavesNoPreferences(),
        RetryableRefreshBacksOff(),
        NoRefreshStormFromClockSkew(),
        NoDeadSessionFromClockSkew(),
        SessionEndEndsPendingRequests(),
        OfflineRevocationRetried(),
        NoCommandBlockedByAnUnansweredRefresh(),
        DeferredRefreshTriedAgain(),
        EndedSessionRevoked(),
        FailedSignInLeavesSigningIn(),
        LoginsAskedForByTheUser(),
    ]

    /// Every invariant some oracle checks, for `lint`.
    public static var checkedInvariants: Set<String> { Set(all.flatMap(\.invariants)) }

    /// Each oracle's ID and the requirements its findings are charged to, for the pages that name oracles
    /// (docs/violation-matrix.md).
    public static var charges: [(id: String, requirements: [String])] { all.map { ($0.id, $0.requirements) } }
}

extension TraceIndex.Exchange {
    /// The endpoint the request addresses, in either dialect (`WorldEndpoints`): a refresh is a refresh
    /// whether it went to `/auth/refresh` or as `grant_type=refresh_token` to `/oauth/token`.
    var endpoint: LogicalEndpoint? { WorldEndpoints.standard.logical(request) }
    var isRefresh: Bool { endpoint == .refresh }
    var isLogin: Bool { endpoint == .login }
    var isAuthEndpoint: Bool {
        request.path.hasPrefix("/auth/") || request.path.hasPrefix("/oauth/") || [.login, .refresh, .revoke].contains(endpoint)
    }
    var presentedRefreshToken: String? {
        (try? RequestParameters.parse(request).get())?["refresh_token"] ?? request.body["refresh_token"]?.string
    }
    var issuedAccessToken: String? { responseBody.flatMap { $0.status == 200 ? $0.body["access_token"]?.string : nil } }
    var issuedRefreshToken: String? { responseBody.flatMap { $0.status == 200 ? $0.body["refresh_token"]?.string : nil } }
}

/// Transitions that end a session: its tokens must not be used again.
let sessionEndingTransitions: Set<String> = [
    "sign-out", "sign-out-during-refresh", "refresh-rejected", "restore-failed", "account-switch",
    "switch-during-refresh", "restore-sign-out",
]
