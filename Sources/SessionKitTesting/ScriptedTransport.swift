import POSIXSync
import Foundation
import SessionKit

/// The server side of the world's network: answers a request (a simulated server, or a script).
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> TransportReply
}

/// What the network gives back for one request.
public enum TransportReply: Sendable, Hashable, CustomStringConvertible {
    case response(HTTPResponse)
    case failure(TransportFailure)

    public var description: String {
        switch self {
        case .response(let response): response.description
        case .failure(let failure): failure.description
        }
    }

    /// The HTTP status, for a response.
    public var status: Int? {
        if case .response(let response) = self { response.status } else { nil }
    }
}

/// Selects requests by method and path (exact or prefix).
public struct RequestMatcher: Sendable, Hashable {
    /// The method to match, or any.
    public var method: HTTPMethod?
    /// The path (or prefix) to match, or any.
    public var path: String?
    /// Whether `path` is a prefix.
    public var pathIsPrefix: Bool

    /// Creates a matcher.
    public init(method: HTTPMethod? = nil, path: String? = nil, pathIsPrefix: Bool = false) {
        self.method = method
        self.path = path
        self.pathIsPrefix = pathIsPrefix
    }

    /// Matches every request.
    public static let any = RequestMatcher()
    /// Matches one exact path.
    public static func path(_ path: String) -> RequestMatcher { RequestMatcher(path: path) }
    /// Matches paths starting with `prefix`.
    public static func prefix(_ prefix: String) -> RequestMatcher { RequestMatcher(path: prefix, pathIsPrefix: true) }

    /// The documented endpoints.
    public static let login = path("/auth/login")
    public static let refresh = path("/auth/refresh")
    public static let revoke = path("/auth/revoke")
    public static let profile = path("/me")
    public static let resources = prefix("/resources/")

    /// Whether `request` matches.
    public func matches(_ request: HTTPRequest) -> Bool {
        if let method, method != request.method { return false }
        guard let path else { return true }
        return pathIsPrefix ? request.path.hasPrefix(path) : request.path == path
    }
}

/// When a held exchange is parked.
public enum HoldStage: String, Sendable, Hashable {
    /// Before the server sees the request.
    case beforeServer
    /// After the server processed it (tokens rotated), before the client gets the reply.
    case afterServer
}

/// The network between the world's processes and its server. The test can take the network offline, and
/// hold matching exchanges until it releases them (optionally replacing the reply), which is how tests
/// force an ordering: hold the refresh until every 401 arrived, deliver A's late reply after B signed in.
public final class ScriptedTransport: Sendable {
    /// An exchange parked by a hold rule.
    public struct HeldExchange: Sendable {
        public let exchange: Int
        public let request: HTTPRequest
        public let stage: HoldStage
    }

    private struct HoldRule {
        let id: Int
        let matcher: RequestMatcher
        let stage: HoldStage
        var remaining: Int?
    }

    private struct Parked {
        let info: HeldExchange
        let continuation: CheckedContinuation<TransportReply?, Never>
    }

    private struct State {
        var nextExchange = 0
        var nextRule = 0
        var online = true
        var rules: [HoldRule] = []
        var parked: [Int: Parked] = [:]
    }

    private let state = Locked(State())
    private let trace: WorldTrace
    private let responder: any HTTPResponder

    /// Creates a network in front of `responder`, recording to `trace`.
    public init(trace: WorldTrace, responder: any HTTPResponder) {
        self.trace = trace
        self.responder = responder
    }

    /// The transport as one process sees it.
    public func view(for process: ProcessHandle) -> any HTTPTransport {
        ProcessTransport(transport: self, process: process)
    }

    /// Offline: every request fails with `offline` without reaching the server.
    public func setOnline(_ online: Bool) {
        state.withLock { $0.online = online }
    }

    /// Holds matching exchanges at `stage` (the next `count`, or all until removed).
    @discardableResult
    public func hold(_ matcher: RequestMatcher, at stage: HoldStage = .beforeServer, count: Int? = nil) -> Int {
        state.withLock { state in
            defer { state.nextRule += 1 }
            state.rules.append(HoldRule(id: state.nextRule, matcher: matcher, stage: stage, remaining: count))
            return state.nextRule
        }
    }

    /// Removes a hold rule; exchanges already held stay held.
    public func removeHold(_ rule: Int) {
        state.withLock { $0.rules.removeAll { $0.id == rule } }
    }

    /// Exchanges currently held, in arrival order.
    public var heldExchanges: [HeldExchange] {
        state.withLock { $0.parked.values.map(\.info).sorted { $0.exchange < $1.exchange } }
    }

    /// Lets a held exchange go on; `reply` replaces what the server (would have) answered.
    public func release(_ exchange: Int, with reply: TransportReply? = nil) {
        state.withLock { $0.parked.removeValue(forKey: exchange) }?.continuation.resume(returning: reply)
    }

    /// Releases every held exchange matching `matcher`.
    public func releaseAll(_ matcher: RequestMatcher = .any, with reply: TransportReply? = nil) {
        let parked = state.withLock { state -> [Parked] in
            let chosen = state.parked.values.filter { matcher.matches($0.info.request) }.sorted { $0.info.exchange < $1.info.exchange }
            for item in chosen { state.parked[item.info.exchange] = nil }
            return chosen
        }
        for item in parked { item.continuation.resume(returning: reply) }
    }

    /// Waits until `count` matching exchanges have been held, and returns those still held.
    @discardableResult
    public func waitForHeld(_ matcher: RequestMatcher = .any, count: Int = 1) async -> [HeldExchange] {
        await trace.waitUntil(count: count) { if case .httpHeld(_, let request, _) = $0.event { matcher.matches(request) } else { false } }
        return heldExchanges.filter { matcher.matches($0.request) }
    }

    fileprivate func send(_ request: HTTPRequest, process: ProcessHandle) async -> TransportReply {
        guard process.isAlive else { return await process.suspendForever() }
        let (exchange, online) = state.withLock { state -> (Int, Bool) in
            defer { state.nextExchange += 1 }
            return (state.nextExchange, state.online)
        }
        trace.append(.httpRequest(exchange: exchange, request), process: process.id)
        var reply: TransportReply
        if !online {
            reply = .failure(TransportFailure(.offline, context: "network offline"))
        } else {
            let before = await park(exchange, request, .beforeServer, process)
            if let before {
                reply = before
            } else {
                reply = await responder.respond(to: request)
            }
            if let after = await park(exchange, request, .afterServer, process) { reply = after }
        }
        guard process.isAlive else { return await process.suspendForever() }
        trace.append(.httpReply(exchange: exchange, reply), process: process.id)
        return reply
    }

    private func park(_ exchange: Int, _ request: HTTPRequest, _ stage: HoldStage, _ process: ProcessHandle) async -> TransportReply? {
        let held = state.withLock { state -> Bool in
            guard let index = state.rules.firstIndex(where: { $0.stage == stage && $0.matcher.matches(request) }) else { return false }
            if let remaining = state.rules[index].remaining {
                if remaining <= 1 { state.rules.remove(at: index) } else { state.rules[index].remaining = remaining - 1 }
            }
            return true
        }
        guard held else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<TransportReply?, Never>) in
            let info = HeldExchange(exchange: exchange, request: request, stage: stage)
            state.withLock { $0.parked[exchange] = Parked(info: info, continuation: continuation) }
            trace.append(.httpHeld(exchange: exchange, request, stage), process: process.id)
        }
    }
}

private struct ProcessTransport: HTTPTransport {
    let transport: ScriptedTransport
    let process: ProcessHandle

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        switch await transport.send(request, process: process) {
        case .response(let response): return response
        case .failure(let failure): throw failure
        }
    }
}
