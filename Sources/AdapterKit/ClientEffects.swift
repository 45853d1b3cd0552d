public import ConformanceProtocol
import Foundation

/// The command a piece of client work serves, so HTTP effects can name their cause.
public enum CommandContext {
    @TaskLocal public static var id: String?
}

/// Everything a hosted client can do to the world, as async calls. Each call is a protocol effect the
/// runner answers, or an event it records.
public final class ClientEffects: Sendable {
    let bridge: EffectBridge
    /// The executor every task of the client must prefer, so the host knows when the client is idle.
    public let taskExecutor: any TaskExecutor
    public let seed: UInt64
    /// The executor every actor of the client must be isolated to (its `unownedExecutor`), for the same reason.
    public let serialExecutor: UnownedSerialExecutor
    /// The world profile the runner's `welcome` described, when it described one.
    public let world: WorldDescription?
    /// Loopback mode: the runner's server and the counting of requests; nil in message mode.
    public let loopback: LoopbackHTTP?

    init(bridge: EffectBridge, executor: ClientExecutor, seed: UInt64, world: WorldDescription? = nil, loopback: LoopbackHTTP? = nil) {
        self.bridge = bridge
        self.taskExecutor = executor
        self.serialExecutor = executor.asUnownedSerialExecutor()
        self.seed = seed
        self.world = world
        self.loopback = loopback
    }

    /// What an HTTP exchange gave: a response of any status, or no response.
    public enum HTTPOutcome: Sendable {
        case response(HTTPResponseMessage)
        case failure(ErrorInfo)
        /// The waiting task was cancelled.
        case cancelled
    }

    public func http(_ request: HTTPRequestMessage) async -> HTTPOutcome {
        let cause = CommandContext.id
        switch await bridge.request({ .http(id: $0, cause: cause, request) }) {
        case .response(let response)?: return .response(response)
        case .failure(let info)?: return .failure(info)
        case nil: return .cancelled
        default: return .failure(ErrorInfo(code: "connectionLost", message: "unexpected reply", definite: false))
        }
    }

    /// `http` with a deadline on the runner's virtual clock, as a real stack's request timeout: the request races a
    /// `sleep` of `seconds`. When the sleep ends first the request is abandoned (`abandon`, reason `timeout`: the
    /// runner stops holding it and never answers it) and the outcome is a `timeout` failure, indefinite (the server
    /// may have processed it); when the request is answered first the sleep is abandoned
    /// (docs/porting-guide.md, Real-time waits).
    public func http(_ request: HTTPRequestMessage, deadline seconds: Double) async -> HTTPOutcome {
        let cause = CommandContext.id
        guard let (first, reply) = await bridge.first({ .http(id: $0, cause: cause, request) }, { .sleep(id: $0, seconds: seconds) },
                                                       abandoning: (first: "timeout", second: "answered"))
        else { return .cancelled }
        guard first else {
            return .failure(ErrorInfo(code: "timeout", message: "no response within \(seconds) s", definite: false))
        }
        switch reply {
        case .response(let response): return .response(response)
        case .failure(let info): return .failure(info)
        default: return .failure(ErrorInfo(code: "connectionLost", message: "unexpected reply", definite: false))
        }
    }

    /// Loopback mode: one request through the client's own HTTP stack. `send` sends it with the headers it is given
    /// added (`X-Conformance-Cause`, `X-Conformance-Request`); the request counts as started before `send` runs and
    /// as finished when `send` returns or throws. With `deadline` (seconds on the runner's virtual clock, the real
    /// stack's request timeout), `send` races a `sleep`: when the sleep ends first, the request is abandoned (reason
    /// `timeout`: the runner never answers it, so it is never counted finished), the task running `send` is cancelled
    /// (URLSession's async API then cancels its request; `send`'s late outcome is dropped), and
    /// `LoopbackDeadlineExceeded` is thrown; when `send` ends first, the sleep is abandoned (reason `answered`).
    /// The two never land in the same round: the runner wakes a sleep in a round of its own, once every response it
    /// sent has reached the client, so a response that was sent always wins, and a deadline that fires names a request
    /// the runner has not answered and, once abandoned, never will (docs/porting-guide.md, The first hour).
    /// Must be called in loopback mode (`loopback` is not nil).
    public func loopback<T: Sendable>(deadline seconds: Double? = nil,
                                      _ send: @escaping @Sendable ([String: String]) async throws -> T) async throws -> T {
        guard let loopback else { preconditionFailure("ClientEffects.loopback(deadline:_:) needs loopback mode (HostedClientIdentity.http)") }
        let exchange = loopback.begin()
        guard let seconds else {
            defer { exchange.finished() }
            return try await send(exchange.headers)
        }
        let outcome = OnceContinuation<Result<T, any Error>?>()
        let sleep = bridge.start({ .sleep(id: $0, seconds: seconds) }) { _ in outcome.resume(nil) }
        let request = Task(executorPreference: taskExecutor) {
            let result: Result<T, any Error>
            do { result = .success(try await send(exchange.headers)) } catch { result = .failure(error) }
            outcome.resume(result)
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.resume(.failure(CancellationError()))
        }
        guard let result else {
            exchange.abandon(reason: "timeout")
            request.cancel()
            throw LoopbackDeadlineExceeded(seconds: seconds)
        }
        if case .failure(let error) = result, error is CancellationError, Task.isCancelled {
            bridge.abandon(sleep, reason: "cancelled")
            exchange.abandon(reason: "cancelled")
            request.cancel()
            throw error
        }
        bridge.abandon(sleep, reason: "answered")
        exchange.finished()
        return try result.get()
    }

    /// Sends a `sleep` of `seconds` and returns at once: await its `reply` (nil once abandoned), or `abandon` it
    /// when the wait is no longer needed (a backoff cut short by `online`), so the runner never wakes it.
    public func startSleep(seconds: Double) -> PendingEffect {
        start { .sleep(id: $0, seconds: seconds) }
    }

    /// Message mode: sends an `http` effect and returns at once: await its `reply`, or `abandon` it when the client
    /// gives up on it (its own deadline), so the runner never answers it and the oracles no longer count it in flight.
    public func startHTTP(_ request: HTTPRequestMessage) -> PendingEffect {
        let cause = CommandContext.id
        return start { .http(id: $0, cause: cause, request) }
    }

    private func start(_ make: (String) -> AdapterMessage) -> PendingEffect {
        let reply = OnceContinuation<ReplyBody?>()
        let id = bridge.start(make) { reply.resume($0) }
        return PendingEffect(id: id, reply: reply, bridge: bridge)
    }

    /// A secure-storage read: the value (nil when absent), or the error (`locked`).
    public func secureGet(_ key: String) async -> Result<String?, StorageFailure> {
        switch await bridge.request({ .storage(id: $0, operation: .get, key: key, value: nil, accessibility: nil) }) {
        case .value(let value)?: return .success(value)
        case .error(let info)?: return .failure(StorageFailure(info: info))
        default: return .failure(StorageFailure(info: ErrorInfo(code: "unavailable", definite: true)))
        }
    }

    public func secureSet(_ key: String, _ value: String, accessibility: Accessibility) async -> Result<Void, StorageFailure> {
        Self.done(await bridge.request { .storage(id: $0, operation: .set, key: key, value: value, accessibility: accessibility) })
    }

    public func secureDelete(_ key: String) async -> Result<Void, StorageFailure> {
        Self.done(await bridge.request { .storage(id: $0, operation: .delete, key: key, value: nil, accessibility: nil) })
    }

    public func preferenceGet(_ key: String) async -> String? {
        if case .value(let value)? = await bridge.request({ .preferences(id: $0, operation: .get, key: key, value: nil) }) {
            return value
        }
        return nil
    }

    /// A preferences change: done, or the error the runner answered (`writeFailed`: nothing was written).
    @discardableResult
    public func preferenceSet(_ key: String, _ value: String) async -> Result<Void, StorageFailure> {
        Self.preferenceDone(await bridge.request { .preferences(id: $0, operation: .set, key: key, value: value) })
    }

    @discardableResult
    public func preferenceDelete(_ key: String) async -> Result<Void, StorageFailure> {
        Self.preferenceDone(await bridge.request { .preferences(id: $0, operation: .delete, key: key, value: nil) })
    }

    /// Waits on the runner's virtual clock; throws `CancellationError` when the task is cancelled. A cancelled wait sends
    /// no `abandon`: the sleep stays outstanding for the runner. To give a sleep up, use `startSleep(seconds:)`.
    public func sleep(seconds: Double) async throws {
        _ = await bridge.request { .sleep(id: $0, seconds: seconds) }
        try Task.checkCancellation()
    }

    /// The device clock as of the runner's last `clock` message.
    public var clock: ClockReading { bridge.clock }

    public func log(_ level: String, _ message: String) { bridge.emit(.log(level: level, message: message)) }
    public func show(_ event: UIEvent) { bridge.emit(.ui(event)) }
    public func transition(_ event: TransitionEvent) { bridge.emit(.transition(event)) }

    /// Only an `error` reply fails a preferences change; a wait cancelled after the change was sent counts as
    /// done, as the runner applies a change when it receives it.
    private static func preferenceDone(_ reply: ReplyBody?) -> Result<Void, StorageFailure> {
        if case .error(let info)? = reply { return .failure(StorageFailure(info: info)) }
        return .success(())
    }

    private static func done(_ reply: ReplyBody?) -> Result<Void, StorageFailure> {
        switch reply {
        case .done?, .value?: return .success(())
        case .error(let info)?: return .failure(StorageFailure(info: info))
        default: return .failure(StorageFailure(info: ErrorInfo(code: "unavailable", definite: true)))
        }
    }
}

/// An effect sent and not yet answered (`ClientEffects.startSleep(seconds:)`, `startHTTP(_:)`): the client may wait
/// for its reply, or give up on it.
public final class PendingEffect: Sendable {
    /// The effect's id, as the runner's trace shows it.
    public let id: String
    private let answer: OnceContinuation<ReplyBody?>
    private let bridge: EffectBridge

    fileprivate init(id: String, reply: OnceContinuation<ReplyBody?>, bridge: EffectBridge) {
        self.id = id
        self.answer = reply
        self.bridge = bridge
    }

    /// The runner's reply; nil when the effect was abandoned first.
    public var reply: ReplyBody? {
        get async { await answer.value }
    }

    /// Gives up on the effect: sends `abandon` with `reason` (free text for the trace: `timeout`, `cancelled`,
    /// `answered`, ...) and ends the wait with nil. An abandon that crosses the reply on the wire is ignored by the
    /// runner, and the reply is dropped here; abandoning twice sends one `abandon`.
    public func abandon(reason: String) {
        guard answer.resume(nil) else { return }
        bridge.abandon(id, reason: reason)
    }
}

/// A storage operation the runner refused: `locked` (secure storage), `writeFailed` (secure storage or preferences).
public struct StorageFailure: Error, Sendable {
    public let info: ErrorInfo
    public var isLocked: Bool { info.code == "locked" }
}
