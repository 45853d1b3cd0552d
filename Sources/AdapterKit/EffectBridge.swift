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

    /// Delivers the runner's reply; a reply to an effect nobody waits for any more is dropped.
    func deliver(_ id: String, _ body: ReplyBody) {
        let continuation = lock.withLock { waiting.removeValue(forKey: id) }
        continuation?.resume(returning: body)
    }
}
