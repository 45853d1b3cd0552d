import ConformanceProtocol
import JSONCore
import SimulatedWorld
import SpecModel

/// What the network gives back for one request.
public enum HTTPOutcome: Sendable, Hashable {
    case response(HTTPResponseMessage)
    case failure(ErrorInfo)
}

/// The whole world outside the client: the servers (`WorldServer`, shared with SessionKit's tests), device
/// storage, clocks, network, faults and holds. Deterministic from its seed.
public struct World: Sendable {
    /// 2026-01-01T00:00:00Z: the server clock at the start of every case.
    public static let epoch: Double = WorldServer.epoch

    var server: WorldServer
    var auth: AuthServer {
        get { server.auth }
        set { server.auth = newValue }
    }
    var storage = DeviceStorage()
    /// The server's (true) time, the device's skew from it, and the device's monotonic clock.
    private(set) var serverTime = World.epoch
    private(set) var monotonic: Double = 0
    var skew: Double = 0
    var online = true
    private var faults: [(path: String, kind: FaultKind, remaining: Int)] = []
    private(set) var holds: [String] = []

    /// A world whose server speaks `profile` (its paths, bodies, fields and starting token rules).
    public init(seed: UInt64, profile: WorldProfile = .jsonV1) {
        server = WorldServer(seed: seed, profile: profile)
    }

    public var profile: WorldProfile { server.profile }

    public var vault: TokenVault { auth.vault }
    public var deviceClock: ClockReading { ClockReading(wall: serverTime + skew, monotonic: monotonic) }
    public var serverLog: [String] { auth.log }

    mutating func advance(by seconds: Double) {
        serverTime += seconds
        monotonic += seconds
    }

    /// The server time at which the newest access token issued so far expires; nil when none was issued.
    var newestAccessTokenExpiry: Double? {
        vault.tokens.filter { $0.kind == .access }.compactMap(\.expiresAt).max()
    }

    /// Seconds of virtual time until every access token issued so far has expired on the server's clock.
    var secondsUntilAccessTokensExpire: Double {
        max(0, (newestAccessTokenExpiry ?? serverTime + auth.accessTokenLifetime) - serverTime)
    }

    mutating func configure(_ settings: ServerSettings) {
        if let reuse = settings.reuseInterval { auth.reuseInterval = reuse }
        if let lifetime = settings.accessTokenLifetime { auth.accessTokenLifetime = lifetime }
    }

    /// Secure-storage changes still to fail (`storageFault: { kind: writeFailure }`).
    private(set) var storageWriteFailures = 0
    /// Preferences changes still to fail (`storageFault: { kind: preferencesWriteFailure }`).
    private(set) var preferencesWriteFailures = 0

    mutating func addStorageFault(_ kind: StorageFaultKind, times: Int) {
        switch kind {
        case .writeFailure: storageWriteFailures += times
        case .preferencesWriteFailure: preferencesWriteFailures += times
        }
    }

    /// Whether the next secure-storage change fails, using up one planned failure if so.
    mutating func takeStorageWriteFailure() -> Bool {
        guard storageWriteFailures > 0 else { return false }
        storageWriteFailures -= 1
        return true
    }

    /// Whether the next preferences change fails, using up one planned failure if so.
    mutating func takePreferencesWriteFailure() -> Bool {
        guard preferencesWriteFailures > 0 else { return false }
        preferencesWriteFailures -= 1
        return true
    }

    mutating func addFault(path: String, kind: FaultKind, times: Int) {
        faults.append((path, kind, times))
    }

    mutating func hold(_ path: String) { holds.append(path) }
    mutating func release(_ path: String) { holds.removeAll { $0 == path } }

    func isHeld(_ request: HTTPRequestMessage) -> Bool { holds.contains { matches(pattern: $0, request) } }

    func contentOwner(_ contentID: String) -> String? { server.api.contentOwners[contentID] }

    /// Whether a case's path pattern names this request: by its path, or by the `json-v1` path of the
    /// endpoint it addresses under the world's profile (`LogicalEndpoint.casePath`), so a refresh at
    /// `/oauth/token` is `/auth/refresh`.
    func matches(pattern: String, _ request: HTTPRequestMessage) -> Bool {
        server.profile.casePaths(request).contains { Self.matches(pattern: pattern, path: $0) }
    }

    /// A path pattern: exact, or a prefix when it ends in `*`.
    public static func matches(pattern: String, path: String) -> Bool {
        pattern.hasSuffix("*") ? path.hasPrefix(pattern.dropLast()) : path == pattern
    }

    /// Serves one request as the network and servers would, applying any fault planned for its path.
    mutating func serve(_ request: HTTPRequestMessage) -> HTTPOutcome {
        guard online else { return .failure(ProtocolErrorCode.offline.info("the device is offline")) }
        if let index = faults.firstIndex(where: { matches(pattern: $0.path, request) }) {
            let kind = faults[index].kind
            faults[index].remaining -= 1
            if faults[index].remaining == 0 { faults.remove(at: index) }
            switch kind {
            case .invalidGrant:
                return .response(stamped(HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])))
            case .expiredToken:
                return .response(stamped(HTTPResponseMessage(
                    status: 401, headers: ["www-authenticate": #"Bearer realm="world", error="invalid_token", error_description="the access token expired""#],
                    body: ["error": "invalid_token"])))
            case .serverError:
                return .response(stamped(HTTPResponseMessage(status: 503, body: ["error": "temporarily_unavailable"])))
            case .rateLimited:
                return .response(stamped(HTTPResponseMessage(status: 429, headers: ["retry-after": "1"], body: ["error": "too_many_requests"])))
            case .timeout:
                return .failure(ProtocolErrorCode.timeout.info("no response in time"))
            case .offline:
                return .failure(ProtocolErrorCode.offline.info("the device is offline"))
            case .revoked:
                revokeSessions(presentedIn: request)
                return route(request)
            case .lost:
                _ = route(request)
                return .failure(ProtocolErrorCode.connectionLost.info("the response was lost"))
            }
        }
        return route(request)
    }

    private mutating func route(_ request: HTTPRequestMessage) -> HTTPOutcome {
        .response(server.respond(to: request, at: serverTime))
    }

    /// A response the world made up (a fault) carries the server's `Date` like any other.
    private func stamped(_ response: HTTPResponseMessage) -> HTTPResponseMessage {
        var response = response
        response.headers["date"] = HTTPDate.format(serverTime)
        return response
    }

    private mutating func revokeSessions(presentedIn request: HTTPRequestMessage) {
        let presented = request.bearerToken ?? server.profile.presentedToken(request)
        if let token = presented.flatMap({ auth.vault.token($0) }) {
            auth.revokeAll(account: token.account)
        }
    }

}
