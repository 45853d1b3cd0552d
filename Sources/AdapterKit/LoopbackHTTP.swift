public import Foundation

/// Loopback mode (`HostedClientIdentity.http = .loopback`): the client sends real HTTP to the runner's server at
/// `baseURL` through its own stack, and the host counts what the barriers need (docs/adapter-protocol.md, Loopback
/// HTTP): every request started, every response or transport failure that reached the client's code. Each request
/// goes through `begin()` right before the stack sends it; `ClientEffects.loopback(deadline:_:)` does the whole
/// recipe, and `AdapterKitURLSession` does it for URLSession.
public final class LoopbackHTTP: @unchecked Sendable {
    // @unchecked: the counters are guarded by `lock`.
    /// The runner's server, from `welcome`.
    public let baseURL: URL
    private let bridge: EffectBridge
    private let lock = NSLock()
    private var startedCount = 0
    private var finishedCount = 0
    private var nextTag = 0

    init(baseURL: URL, bridge: EffectBridge) {
        self.baseURL = baseURL
        self.bridge = bridge
    }

    /// Requests started since the client began: the `httpStarted` of the next barrier answer.
    var started: Int { lock.withLock { startedCount } }
    /// Responses and transport failures that reached the client's code.
    var finished: Int { lock.withLock { finishedCount } }

    /// Counts a request the stack is about to send and gives the headers to add to it: `X-Conformance-Cause` (the
    /// command the current task serves, when there is one) and `X-Conformance-Request` (a tag unique in the process,
    /// what an abandon names). Every attempt the stack makes is one `begin()`: a stack that silently re-sends a
    /// request must be kept from doing so, or counted where it does.
    public func begin() -> LoopbackExchange {
        let tag = lock.withLock {
            startedCount += 1
            nextTag += 1
            return "r\(nextTag)"
        }
        var headers = ["X-Conformance-Request": tag]
        if let cause = CommandContext.id { headers["X-Conformance-Cause"] = cause }
        return LoopbackExchange(tag: tag, headers: headers, owner: self)
    }

    fileprivate func countFinished() { lock.withLock { finishedCount += 1 } }
    fileprivate func abandon(_ tag: String, reason: String) { bridge.abandon(tag, reason: reason) }
}

/// One request to the runner's server, from `LoopbackHTTP.begin()` until it ends one of two ways: `finished()` when
/// its response or transport failure reaches the client's code, or `abandon(reason:)` when the client gives up on it
/// (the runner then never answers it, so it is never counted finished). Whichever comes first counts; the other is
/// ignored.
public final class LoopbackExchange: @unchecked Sendable {
    // @unchecked: `ended` is guarded by `lock`.
    public let tag: String
    /// The headers to add to the request.
    public let headers: [String: String]
    private let owner: LoopbackHTTP
    private let lock = NSLock()
    private var ended = false

    fileprivate init(tag: String, headers: [String: String], owner: LoopbackHTTP) {
        self.tag = tag
        self.headers = headers
        self.owner = owner
    }

    /// The response, or the stack's transport error, reached the client's code. Call it on the client's executor
    /// (in the code that awaited the response), so a barrier waits for that code to run.
    public func finished() {
        guard end() else { return }
        owner.countFinished()
    }

    /// The client gives up on the request (its deadline passed): sends `abandon` with the tag.
    public func abandon(reason: String = "timeout") {
        guard end() else { return }
        owner.abandon(tag, reason: reason)
    }

    private func end() -> Bool {
        lock.withLock {
            defer { ended = true }
            return !ended
        }
    }
}

/// A loopback request's deadline on the runner's virtual clock passed before its response.
public struct LoopbackDeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public let seconds: Double
    public var description: String { "no response within \(seconds) s" }
}
