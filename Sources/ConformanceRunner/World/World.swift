import ConformanceProtocol
import JSONCore
import SpecModel

/// What the network gives back for one request.
public enum HTTPOutcome: Sendable, Hashable {
    case response(HTTPResponseMessage)
    case failure(ErrorInfo)
}

/// The whole world outside the client: servers, device storage, clocks, network. Deterministic from its seed.
public struct World: Sendable {
    /// 2026-01-01T00:00:00Z: the server clock at the start of every case.
    public static let epoch: Double = 1_767_225_600

    var auth: AuthServer
    var api = APIServer()
    var storage = DeviceStorage()
    /// The server's (true) time, the device's skew from it, and the device's monotonic clock.
    private(set) var serverTime = World.epoch
    private(set) var monotonic: Double = 0
    var skew: Double = 0
    var online = true
    private var faults: [(path: String, kind: FaultKind, remaining: Int)] = []
    private(set) var holds: [String] = []

    public init(seed: UInt64) {
        auth = AuthServer(seed: seed)
    }

    public var vault: TokenVault { auth.vault }
    public var deviceClock: ClockReading { ClockReading(wall: serverTime + skew, monotonic: monotonic) }
    public var serverLog: [String] { auth.log }

    mutating func advance(by seconds: Double) {
        serverTime += seconds
        monotonic += seconds
    }

    mutating func configure(_ settings: ServerSettings) {
        if let reuse = settings.reuseInterval { auth.reuseInterval = reuse }
        if let lifetime = settings.accessTokenLifetime { auth.accessTokenLifetime = lifetime }
    }

    mutating func addFault(path: String, kind: FaultKind, times: Int) {
        faults.append((path, kind, times))
    }

    mutating func hold(_ path: String) { holds.append(path) }
    mutating func release(_ path: String) { holds.removeAll { $0 == path } }

    func isHeld(_ path: String) -> Bool { holds.contains { Self.matches(pattern: $0, path: path) } }

    func contentOwner(_ contentID: String) -> String? { api.contentOwners[contentID] }

    /// A path pattern: exact, or a prefix when it ends in `*`.
    public static func matches(pattern: String, path: String) -> Bool {
        pattern.hasSuffix("*") ? path.hasPrefix(pattern.dropLast()) : path == pattern
    }

    /// Serves one request as the network and servers would, applying any fault planned for its path.
    mutating func serve(_ request: HTTPRequestMessage) -> HTTPOutcome {
        guard online else { return .failure(ProtocolErrorCode.offline.info("the device is offline")) }
        if let index = faults.firstIndex(where: { Self.matches(pattern: $0.path, path: request.path) }) {
            let kind = faults[index].kind
            faults[index].remaining -= 1
            if faults[index].remaining == 0 { faults.remove(at: index) }
            switch kind {
            case .invalidGrant:
                return .response(HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"]))
            case .expiredToken:
                return .response(HTTPResponseMessage(
                    status: 401, headers: ["www-authenticate": "Bearer error=\"invalid_token\""], body: ["error": "invalid_token"]))
            case .serverError:
                return .response(HTTPResponseMessage(status: 503, body: ["error": "temporarily_unavailable"]))
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

    private mutating func revokeSessions(presentedIn request: HTTPRequestMessage) {
        let presented = request.bearerToken ?? request.body["refresh_token"]?.string
        if let token = presented.flatMap({ auth.vault.token($0) }) {
            auth.revokeAll(account: token.account)
        }
    }

    private mutating func route(_ request: HTTPRequestMessage) -> HTTPOutcome {
        // The endpoints take no query string (docs/adapter-protocol.md): a path with one is unknown.
        if request.path.contains("?") {
            return .response(HTTPResponseMessage(status: 404, body: ["error": "not_found"]))
        }
        let body = request.body
        switch (request.method.uppercased(), request.path) {
        case ("POST", "/auth/login"):
            return .response(auth.login(email: body["email"]?.string ?? "", password: body["password"]?.string ?? "",
                                        at: serverTime))
        case ("POST", "/auth/refresh"):
            return .response(auth.refresh(body["refresh_token"]?.string, at: serverTime))
        case ("POST", "/auth/revoke"):
            return .response(auth.revoke(body["refresh_token"]?.string ?? body["token"]?.string))
        case ("GET", "/me"):
            return authorizedAccount(request).map { .response(api.profile(for: $0)) } ?? unauthorized(request)
        case ("GET", let path) where path.hasPrefix("/resources/"):
            let name = String(path.dropFirst("/resources/".count))
            return authorizedAccount(request).map { .response(api.resource(name, for: $0)) } ?? unauthorized(request)
        case ("GET", let path) where path.hasPrefix("/accounts/"):
            // `/accounts/{account_id}/resources/{name}`: the server authorizes every request, so a valid token
            // that reaches another account's data is refused.
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count == 4, parts[2] == "resources" else {
                return .response(HTTPResponseMessage(status: 404, body: ["error": "not_found"]))
            }
            guard let account = authorizedAccount(request) else { return unauthorized(request) }
            guard account.id == parts[1] else {
                return .response(HTTPResponseMessage(status: 403, body: ["error": "forbidden"]))
            }
            return .response(api.resource(String(parts[3]), for: account))
        default:
            return .response(HTTPResponseMessage(status: 404, body: ["error": "not_found"]))
        }
    }

    /// The account whose valid access token the request carries, or nil.
    private func authorizedAccount(_ request: HTTPRequestMessage) -> WorldAccount? {
        guard auth.accessProblem(request.bearerToken, at: serverTime) == nil else { return nil }
        return auth.vault.token(request.bearerToken ?? "").flatMap { WorldAccount.withID($0.account) }
    }

    private func unauthorized(_ request: HTTPRequestMessage) -> HTTPOutcome {
        let problem = auth.accessProblem(request.bearerToken, at: serverTime) ?? "forbidden"
        return .response(HTTPResponseMessage(
            status: 401, headers: ["www-authenticate": "Bearer error=\"\(problem)\""], body: ["error": .string(problem)]))
    }
}
