import ConformanceProtocol
import Foundation

/// Turns the client's effects into protocol messages and the runner's replies back into results.
/// Effects suspend on a continuation keyed by the effect id until the reply arrives.
final class EffectBridge: @unchecked Sendable {
    private let lock = NSLock()
    private var outbox: [AdapterMessage] = []
    private var waiting: [String: CheckedContinuation<ReplyBody?, Never>] = [:]
    private var nextEffect = 0
    private var clockReading = ClockReading(wall: 0, monotonic: 0)

    var clock: ClockReading {
        lock.withLock { clockReading }
    }

    func setClock(_ reading: ClockReading) {
        lock.withLock { clockReading = reading }
    }

    /// An event: sent, no reply expected.
    func emit(_ message: AdapterMessage) {
        lock.withLock { outbox.append(message) }
    }

    /// Everything sent since the last call.
    func takeOutbox() -> [AdapterMessage] {
        lock.withLock {
            defer { outbox = [] }
            return outbox
        }
    }

    /// Sends an effect and waits for its reply; nil when the wait was cancelled.
    func request(_ make: (String) -> AdapterMessage) async -> ReplyBody? {
        let id = lock.withLock {
            nextEffect += 1
            return "e\(nextEffect)"
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.withLock {
                    waiting[id] = continuation
                    outbox.append(make(id))
                }
            }
        } onCancel: {
            let continuation = lock.withLock { waiting.removeValue(forKey: id) }
            continuation?.resume(returning: nil)
        }
    }

    /// Sends two effects and waits for the reply of whichever is answered first; the other is abandoned (an
    /// `abandon` message with `reason`, so the runner stops holding it). Nil when the wait was cancelled: both
    /// are abandoned then.
    func first(_ makeFirst: (String) -> AdapterMessage, _ makeSecond: (String) -> AdapterMessage,
               abandoning reasons: (first: String, second: String)) async -> (first: Bool, reply: ReplyBody)? {
        let ids = lock.withLock {
            nextEffect += 2
            return ("e\(nextEffect - 1)", "e\(nextEffect)")
        }
        let once = OnceContinuation<(String, ReplyBody)?>()
        lock.withLock {
            racing[ids.0] = once
            racing[ids.1] = once
            outbox.append(makeFirst(ids.0))
            outbox.append(makeSecond(ids.1))
        }
        let answer = await withTaskCancellationHandler {
            await once.value
        } onCancel: {
            once.resume(nil)
        }
        lock.withLock {
            racing[ids.0] = nil
            racing[ids.1] = nil
            switch answer?.0 {
            case ids.0?: outbox.append(.abandon(id: ids.1, reason: reasons.second))
            case ids.1?: outbox.append(.abandon(id: ids.0, reason: reasons.first))
            default:
                outbox.append(.abandon(id: ids.0, reason: "cancelled"))
                outbox.append(.abandon(id: ids.1, reason: "cancelled"))
            }
        }
        return answer.map { ($0.0 == ids.0, $0.1) }
    }

    /// Races of `first`, by effect id.
    private var racing: [String: OnceContinuation<(String, ReplyBody)?>] = [:]
    /// Effects whose reply runs code instead of resuming a caller (`start(_:onReply:)`), by effect id.
    private var callbacks: [String: @Sendable (ReplyBody) -> Void] = [:]

    /// Sends an effect whose reply calls `onReply` (on the host's thread, while it handles the reply); its id, for
    /// `abandon(_:reason:)`.
    func start(_ make: (String) -> AdapterMessage, onReply: @escaping @Sendable (ReplyBody) -> Void) -> String {
        lock.withLock {
            nextEffect += 1
            let id = "e\(nextEffect)"
            callbacks[id] = onReply
            outbox.append(make(id))
            return id
        }
    }

    /// Gives up on an effect sent with `start(_:onReply:)` (its reply will call nothing), or on a loopback request
    /// by its tag: the runner is told with an `abandon`.
    func abandon(_ id: String, reason: String) {
        lock.withLock {
            callbacks[id] = nil
            outbox.append(.abandon(id: id, reason: reason))
        }
    }

    /// Delivers the runner's reply; a reply to an effect nobody waits for any more is dropped.
    func deliver(_ id: String, _ body: ReplyBody) {
        let (continuation, race, callback) = lock.withLock {
            (waiting.removeValue(forKey: id), racing.removeValue(forKey: id), callbacks.removeValue(forKey: id))
        }
        continuation?.resume(returning: body)
        race?.resume((id, body))
        callback?(body)
    }
}
