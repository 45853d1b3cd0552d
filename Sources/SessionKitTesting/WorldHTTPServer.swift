import POSIXSync
import ConformanceProtocol
import Foundation
import JSONCore
import SessionKit
import SimulatedWorld

/// The simulated world's servers (`WorldServer`, the same rules the conformance runner plays) behind
/// SessionKit's HTTP types, on the world's true time (the `ManualClock`'s monotonic time, independent of the
/// device wall clock), with faults injectable per endpoint and call.
public final class WorldHTTPServer: HTTPResponder {
    /// Server behaviour.
    public struct Configuration: Sendable {
        /// `expires_in` of issued access tokens.
        public var accessTokenLifetime: Duration
        /// How long after rotation the previous refresh token is still accepted once; reuse after that
        /// revokes the whole token family.
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
    public typealias Endpoint = LogicalEndpoint

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

    private struct State {
        var server: WorldServer
        var faults: [Endpoint: [Fault]] = [:]
        var counts: [Endpoint: Int] = [:]
        var unauthorizedCount = 0
    }

    private let state: Locked<State>
    private let clock: ManualClock

    /// Creates a server with no accounts on the world's true time, issuing tokens from `seed`, serving the
    /// endpoints of `profile` (`configuration` sets the token rules).
    public init(clock: ManualClock, seed: UInt64 = 7, configuration: Configuration = Configuration(),
                profile: WorldProfile = .jsonV1) {
        self.clock = clock
        state = Locked(State(server: WorldServer(seed: seed, accounts: [], profile: profile)))
        setConfiguration(configuration)
    }

    // MARK: - Setup and inspection

    /// Adds an account that can sign in.
    public func addAccount(email: String, password: String, id: AccountID, displayName: String = "User") {
        state.withLock {
            $0.server.auth.addAccount(WorldAccount(name: displayName, email: email, password: password, id: id.rawValue))
        }
    }

    /// Sets a resource of `account`; `body` is JSON.
    public func setResource(_ name: String, body: String, for account: AccountID) {
        let value = (try? JSONParser.parse(body)) ?? .string(body)
        state.withLock { $0.server.api.setResource(name, body: value, for: account.rawValue) }
    }

    /// Replaces the server behaviour.
    public func setConfiguration(_ configuration: Configuration) {
        state.withLock {
            $0.server.auth.accessTokenLifetime = Self.seconds(configuration.accessTokenLifetime)
            $0.server.auth.reuseInterval = Self.seconds(configuration.refreshReuseInterval)
            $0.server.auth.rotatesRefreshTokens = configuration.rotatesRefreshTokens
        }
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
        let now = serverTime
        state.withLock { $0.server.auth.expireAccessTokens(at: now) }
    }

    /// Revokes every token family of `account` (an admin revocation).
    public func revokeSessions(of account: AccountID) {
        state.withLock { $0.server.auth.revokeAll(account: account.rawValue) }
    }

    /// Calls received by `endpoint`, faulted ones included.
    public func requestCount(_ endpoint: Endpoint) -> Int { state.withLock { $0.counts[endpoint] ?? 0 } }

    /// 401 answers from the profile and resource endpoints.
    public var unauthorizedCount: Int { state.withLock { $0.unauthorizedCount } }

    /// Every token issued, in order.
    public var issuedTokens: [IssuedToken] {
        state.withLock { state in
            state.server.auth.vault.tokens.map {
                IssuedToken(value: $0.value, kind: $0.kind == .access ? .access : .refresh, account: AccountID($0.account))
            }
        }
    }

    /// Whether `refreshToken` would still be accepted (current, not revoked).
    public func isRefreshTokenActive(_ refreshToken: String) -> Bool {
        state.withLock { $0.server.auth.isRefreshTokenActive(refreshToken) }
    }

    /// Whether the family of `refreshToken` is revoked.
    public func isFamilyRevoked(ofRefreshToken refreshToken: String) -> Bool {
        state.withLock { $0.server.auth.isFamilyRevoked(of: refreshToken) }
    }

    // MARK: - HTTP

    /// Answers one request.
    public func respond(to request: HTTPRequest) async -> TransportReply {
        let message = Self.message(request)
        let now = serverTime
        let (endpoint, fault) = state.withLock { state -> (Endpoint?, Fault?) in
            guard let endpoint = state.server.profile.logical(message) else { return (nil, nil) }
            state.counts[endpoint, default: 0] += 1
            guard var queue = state.faults[endpoint], !queue.isEmpty else { return (endpoint, nil) }
            let fault = queue.removeFirst()
            state.faults[endpoint] = queue
            return (endpoint, fault)
        }
        switch fault {
        case .status(let status, let error)?:
            return .response(Self.json(status, error.map { ["error": .string($0)] } ?? [:]))
        case .invalidGrant?:
            return .response(Self.json(400, ["error": "invalid_grant"]))
        case .sessionRevoked?:
            return .response(Self.json(400, ["error": "session_revoked"]))
        case .transport(let kind)?:
            return .failure(TransportFailure(kind, context: "injected"))
        case .responseLost?:
            _ = serve(message, endpoint: endpoint, at: now)
            return .failure(TransportFailure(.connectionLost, context: "reply lost after processing"))
        case nil:
            return .response(serve(message, endpoint: endpoint, at: now))
        }
    }

    private func serve(_ message: HTTPRequestMessage, endpoint: Endpoint?, at now: Double) -> HTTPResponse {
        let response = state.withLock { state -> HTTPResponseMessage in
            let response = state.server.respond(to: message, at: now)
            if response.status == 401, endpoint == .profile || endpoint == .resource { state.unauthorizedCount += 1 }
            return response
        }
        return HTTPResponse(status: response.status, headers: response.headers,
                            body: response.body.isNull ? Data() : Data(response.body.jsonText.utf8))
    }

    /// The server's time in seconds since 1970: the world's epoch plus the true time elapsed.
    private var serverTime: Double { WorldServer.epoch + Self.seconds(clock.now.sinceOrigin) }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// SessionKit's request as the world reads it: a JSON body as JSON, any other body as text.
    private static func message(_ request: HTTPRequest) -> HTTPRequestMessage {
        let text = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let body: JSONValue = text.isEmpty ? .null : ((try? JSONParser.parse(text)) ?? .string(text))
        return HTTPRequestMessage(method: request.method.rawValue, path: request.path, headers: request.headers, body: body)
    }

    private static func json(_ status: Int, _ object: [String: JSONValue]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(JSONValue.object(object).jsonText.utf8))
    }
}
