import Foundation
import SessionKit

/// The auth and API server of the world: login, refresh with rotation and reuse detection, revocation,
/// profile and per-account resources, with faults injectable per endpoint and call. Its clock is true
/// time (the `ManualClock`'s monotonic time), independent of the device wall clock.
public final class SimulatedAuthServer: HTTPResponder {
    /// Server behaviour.
    public struct Configuration: Sendable {
        /// `expires_in` of issued access tokens.
        public var accessTokenLifetime: Duration
        /// How long after rotation the previous refresh token is still accepted; reuse after that revokes
        /// the whole token family.
        public var refreshReuseInterval: Duration
        /// Whether refresh issues a new refresh token.
        public var rotatesRefreshTokens: Bool

        /// Creates a configuration.
        public init(accessTokenLifetime: Duration = .seconds(300), refreshReuseInterval: Duration = .zero, rotatesRefreshTokens: Bool = true) {
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshReuseInterval = refreshReuseInterval
            self.rotatesRefreshTokens = rotatesRefreshTokens
        }
    }

    /// The endpoints faults can target.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        case login, refresh, revoke, profile, resource
    }

    /// A fault to inject into one call.
    public enum Fault: Sendable, Hashable {
        /// Answer with this status and an optional OAuth `error`, without processing.
        case status(Int, error: String? = nil)
        /// 400 `invalid_grant`.
        case invalidGrant
        /// 400 `session_revoked`.
        case sessionRevoked
        /// No response: the request never reached the server.
        case transport(TransportFailure.Kind)
        /// The server processes the request (a refresh rotates) but the reply is lost.
        case responseLost
    }

    /// Access or refresh.
    public enum TokenKind: String, Sendable, Hashable {
        case access, refresh
    }

    /// A token the server issued, for leak checks.
    public struct IssuedToken: Sendable, Hashable {
        public let value: String
        public let kind: TokenKind
        public let account: AccountID
    }

    private struct Account {
        let id: AccountID
        let email: String
        let password: String
        let displayName: String
    }

    private struct AccessRecord {
        let account: AccountID
        let family: Int
        var expiresAt: Duration
    }

    private enum RefreshState {
        case active
        case rotated(at: Duration)
    }

    private struct RefreshRecord {
        let account: AccountID
        let family: Int
        var state: RefreshState
    }

    private struct State {
        var accounts: [String: Account] = [:]
        var resources: [AccountID: [String: Data]] = [:]
        var access: [String: AccessRecord] = [:]
        var refresh: [String: RefreshRecord] = [:]
        var revokedFamilies: Set<Int> = []
        var nextFamily = 1
        var faults: [Endpoint: [Fault]] = [:]
        var counts: [Endpoint: Int] = [:]
        var unauthorizedCount = 0
        var issued: [IssuedToken] = []
        var configuration: Configuration
    }

    private let state: Locked<State>
    private let clock: ManualClock
    private let random: SeededRandom

    /// Creates a server on the world's true time, issuing tokens from `seed`.
    public init(clock: ManualClock, seed: UInt64 = 7, configuration: Configuration = Configuration()) {
        self.clock = clock
        random = SeededRandom(seed: seed)
        state = Locked(State(configuration: configuration))
    }

    // MARK: - Setup and inspection

    /// Adds an account that can sign in.
    public func addAccount(email: String, password: String, id: AccountID, displayName: String = "User") {
        state.withLock { $0.accounts[email] = Account(id: id, email: email, password: password, displayName: displayName) }
    }

    /// Sets a resource of `account`.
    public func setResource(_ name: String, body: String, for account: AccountID) {
        state.withLock { $0.resources[account, default: [:]][name] = Data(body.utf8) }
    }

    /// Replaces the server behaviour.
    public func setConfiguration(_ configuration: Configuration) {
        state.withLock { $0.configuration = configuration }
    }

    /// Makes the next `count` calls to `endpoint` fail with `fault`.
    public func inject(_ fault: Fault, on endpoint: Endpoint, count: Int = 1) {
        state.withLock { $0.faults[endpoint, default: []].append(contentsOf: Array(repeating: fault, count: count)) }
    }

    /// Drops every pending fault.
    public func clearFaults() {
        state.withLock { $0.faults = [:] }
    }

    /// Every access token issued so far is expired from now on (the client does not know).
    public func expireAccessTokens() {
        let now = clock.now.sinceOrigin
        state.withLock { state in
            for key in state.access.keys { state.access[key]!.expiresAt = min(state.access[key]!.expiresAt, now) }
        }
    }

    /// Revokes every token family of `account` (an admin revocation).
    public func revokeSessions(of account: AccountID) {
        state.withLock { state in
            for record in state.refresh.values where record.account == account { state.revokedFamilies.insert(record.family) }
        }
    }

    /// Calls received by `endpoint`, faulted ones included.
    public func requestCount(_ endpoint: Endpoint) -> Int { state.withLock { $0.counts[endpoint] ?? 0 } }

    /// 401 answers from the profile and resource endpoints.
    public var unauthorizedCount: Int { state.withLock { $0.unauthorizedCount } }

    /// Every token issued, in order.
    public var issuedTokens: [IssuedToken] { state.withLock { $0.issued } }

    /// Whether `refreshToken` would still be accepted (active, not revoked).
    public func isRefreshTokenActive(_ refreshToken: String) -> Bool {
        state.withLock { state in
            guard let record = state.refresh[refreshToken], !state.revokedFamilies.contains(record.family) else { return false }
            if case .active = record.state { return true }
            return false
        }
    }

    /// Whether the family of `refreshToken` is revoked.
    public func isFamilyRevoked(ofRefreshToken refreshToken: String) -> Bool {
        state.withLock { state in state.refresh[refreshToken].map { state.revokedFamilies.contains($0.family) } ?? false }
    }

    // MARK: - HTTP

    /// Answers one request.
    public func respond(to request: HTTPRequest) async -> TransportReply {
        guard let endpoint = Self.endpoint(of: request) else { return .response(Self.json(404, ["error": "not_found"])) }
        let fault = state.withLock { state -> Fault? in
            state.counts[endpoint, default: 0] += 1
            guard var queue = state.faults[endpoint], !queue.isEmpty else { return nil }
            let fault = queue.removeFirst()
            state.faults[endpoint] = queue
            return fault
        }
        switch fault {
        case .status(let status, let error)?:
            return .response(Self.json(status, error.map { ["error": $0] } ?? [:]))
        case .invalidGrant?:
            return .response(Self.json(400, ["error": "invalid_grant"]))
        case .sessionRevoked?:
            return .response(Self.json(400, ["error": "session_revoked"]))
        case .transport(let kind)?:
            return .failure(TransportFailure(kind, context: "injected"))
        case .responseLost?:
            _ = handle(endpoint, request)
            return .failure(TransportFailure(.connectionLost, context: "reply lost after processing"))
        case nil:
            return .response(handle(endpoint, request))
        }
    }

    private static func endpoint(of request: HTTPRequest) -> Endpoint? {
        switch (request.method, request.path) {
        case (.post, "/auth/login"): .login
        case (.post, "/auth/refresh"): .refresh
        case (.post, "/auth/revoke"): .revoke
        case (.get, "/me"): .profile
        case (.get, let path) where path.hasPrefix("/resources/"): .resource
        default: nil
        }
    }

    private func handle(_ endpoint: Endpoint, _ request: HTTPRequest) -> HTTPResponse {
        let body = request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        let now = clock.now.sinceOrigin
        let bearer = request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return state.withLock { state -> HTTPResponse in
            switch endpoint {
            case .login:
                guard let email = body["email"] as? String, let password = body["password"] as? String,
                      let account = state.accounts[email], account.password == password else {
                    return Self.json(401, ["error": "invalid_credentials"])
                }
                let family = state.nextFamily
                state.nextFamily += 1
                return grant(account.id, family: family, now: now, includeAccount: true, state: &state)
            case .refresh:
                guard let token = body["refresh_token"] as? String, let record = state.refresh[token],
                      !state.revokedFamilies.contains(record.family) else {
                    return Self.json(400, ["error": "invalid_grant"])
                }
                switch record.state {
                case .active:
                    if state.configuration.rotatesRefreshTokens { state.refresh[token]!.state = .rotated(at: now) }
                case .rotated(let at) where now - at <= state.configuration.refreshReuseInterval:
                    break
                case .rotated:
                    state.revokedFamilies.insert(record.family)
                    return Self.json(400, ["error": "invalid_grant"])
                }
                return grant(record.account, family: record.family, now: now, includeAccount: false, rotate: state.configuration.rotatesRefreshTokens, state: &state)
            case .revoke:
                if let token = body["token"] as? String, let record = state.refresh[token] {
                    state.revokedFamilies.insert(record.family)
                }
                return Self.json(200, [:])
            case .profile, .resource:
                guard let bearer, let record = state.access[bearer], record.expiresAt > now, !state.revokedFamilies.contains(record.family) else {
                    state.unauthorizedCount += 1
                    return HTTPResponse(status: 401, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""], body: Data(#"{"error":"invalid_token"}"#.utf8))
                }
                if endpoint == .profile {
                    guard let account = state.accounts.values.first(where: { $0.id == record.account }) else { return Self.json(404, [:]) }
                    return Self.json(200, ["account_id": account.id.rawValue, "email": account.email, "display_name": account.displayName])
                }
                let name = String(request.path.dropFirst("/resources/".count))
                guard let data = state.resources[record.account]?[name] else { return Self.json(404, ["error": "not_found"]) }
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: data)
            }
        }
    }

    private func grant(_ account: AccountID, family: Int, now: Duration, includeAccount: Bool, rotate: Bool = true, state: inout State) -> HTTPResponse {
        let lifetime = state.configuration.accessTokenLifetime
        let accessToken = "at_" + token()
        state.access[accessToken] = AccessRecord(account: account, family: family, expiresAt: now + lifetime)
        state.issued.append(IssuedToken(value: accessToken, kind: .access, account: account))
        var body: [String: Any] = [
            "access_token": accessToken,
            "token_type": "Bearer",
            "expires_in": Int(lifetime.components.seconds),
            // Absolute server time: a client that compares it with the device clock breaks under skew.
            "expires_at": Int(ManualClock.epoch.timeIntervalSince1970) + Int((now + lifetime).components.seconds),
        ]
        if rotate {
            let refreshToken = "rt_" + token()
            state.refresh[refreshToken] = RefreshRecord(account: account, family: family, state: .active)
            state.issued.append(IssuedToken(value: refreshToken, kind: .refresh, account: account))
            body["refresh_token"] = refreshToken
        }
        if includeAccount { body["account_id"] = account.rawValue }
        return Self.json(200, body)
    }

    private func token() -> String {
        (0..<3).map { _ in String(format: "%016llx", random.next()) }.joined()
    }

    private static func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: data)
    }
}
