import POSIXSync
import Foundation
import SessionKit

/// Virtual time. Monotonic time moves only when the test calls `advance`; the device wall clock is true
/// time plus a skew the test sets. Sleepers wake in deadline order.
public final class ManualClock: SessionClock {
    /// The world's true wall time at monotonic zero.
    public static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var wallClockSkew: Duration = .zero
        var sleepers: [Sleeper] = []
        var cancelledBeforeSleeping: Set<Int> = []
        var nextID = 0
    }

    private let state = Locked(State())

    /// Creates a clock at monotonic zero with no skew.
    public init() {}

    /// Monotonic now.
    public var now: MonotonicInstant { MonotonicInstant(sinceOrigin: state.withLock { $0.now }) }

    /// True wall time (the server's clock).
    public var trueWallTime: Date { Self.epoch.addingTimeInterval(Self.seconds(state.withLock { $0.now })) }

    /// The device wall clock: true time plus the skew.
    public var deviceWallTime: Date {
        let (now, skew) = state.withLock { ($0.now, $0.wallClockSkew) }
        return Self.epoch.addingTimeInterval(Self.seconds(now + skew))
    }

    /// Sets how far the device wall clock is off true time (positive: ahead).
    public func setWallClockSkew(_ skew: Duration) {
        state.withLock { $0.wallClockSkew = skew }
    }

    /// How many sleeps are pending.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest pending deadline.
    public var nextDeadline: MonotonicInstant? {
        state.withLock { $0.sleepers.map(\.deadline).min() }.map(MonotonicInstant.init(sinceOrigin:))
    }

    /// Moves monotonic (and wall) time forward and wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Advances to the earliest deadline, waking its sleepers. Returns `false` when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let deadline = nextDeadline else { return false }
        advance(by: max(deadline.sinceOrigin - now.sinceOrigin, .zero))
        return true
    }

    /// The device wall clock (`deviceWallTime`).
    public func wallClockNow() -> Date { deviceWallTime }
    /// Monotonic now.
    public func monotonicNow() -> MonotonicInstant { now }

    /// Sleeps until `advance` passes the deadline; throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(for: duration, whenPending: {})
    }

    /// Sleeps like `sleep(for:)`, calling `whenPending` once the sleep is registered (so an `advance` from then on
    /// wakes it), before suspending.
    func sleep(for duration: Duration, whenPending: () -> Void) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelledBeforeSleeping.remove(id) != nil { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return nil
                }
                whenPending()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledBeforeSleeping.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A process's view of the clock: its sleeps are traced, and a killed process never wakes.
struct ProcessClock: SessionClock {
    let clock: ManualClock
    let trace: WorldTrace
    let process: ProcessHandle

    func wallClockNow() -> Date { clock.deviceWallTime }
    func monotonicNow() -> MonotonicInstant { clock.now }

    func sleep(for duration: Duration) async throws {
        guard process.isAlive else { return await process.suspendForever() }
        // Traced once the clock holds the sleeper: a test that saw the sleep and advances the clock wakes it.
        try await clock.sleep(for: duration) { trace.append(.sleep(duration), process: process.id) }
        guard process.isAlive else { return await process.suspendForever() }
    }
}
