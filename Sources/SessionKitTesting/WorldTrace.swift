import POSIXSync
import SessionKit

/// The ordered record of everything every process did: the evidence tests assert on. Tests wait on it
/// deterministically (`waitUntil`) instead of sleeping.
public final class WorldTrace: Sendable {
    /// One recorded effect.
    public struct Entry: Sendable, CustomStringConvertible {
        public let sequence: Int
        public let process: Int
        public let event: TraceEvent

        public var description: String { "#\(sequence) p\(process) \(event)" }
    }

    private struct Waiter {
        let matches: @Sendable (Entry) -> Bool
        var remaining: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var entries: [Entry] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    private let state = Locked(State())

    /// Creates an empty trace.
    public init() {}

    /// Records `event` of process `process` and wakes matching waiters.
    public func append(_ event: TraceEvent, process: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let entry = Entry(sequence: state.entries.count, process: process, event: event)
            state.entries.append(entry)
            var ready: [CheckedContinuation<Void, Never>] = []
            for (id, var waiter) in state.waiters where waiter.matches(entry) {
                waiter.remaining -= 1
                if waiter.remaining <= 0 {
                    state.waiters[id] = nil
                    ready.append(waiter.continuation)
                } else {
                    state.waiters[id] = waiter
                }
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Everything recorded so far.
    public var entries: [Entry] { state.withLock { $0.entries } }

    /// Returns once `count` entries (recorded before or after the call) match, or when the calling task is
    /// cancelled (a test's time limit), so a client that never produces the effect fails the test
    /// instead of hanging it.
    public func waitUntil(count: Int = 1, _ matches: @escaping @Sendable (Entry) -> Bool) async {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    guard !Task.isCancelled else { return true }
                    let already = state.entries.reduce(0) { $0 + (matches($1) ? 1 : 0) }
                    guard already < count else { return true }
                    state.waiters[id] = Waiter(matches: matches, remaining: count - already, continuation: continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
