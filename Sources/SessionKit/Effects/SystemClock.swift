import Foundation

/// The production clock: `Date()` for wall time and `ContinuousClock` for monotonic time and sleeps.
/// Tests and runners inject a virtual clock instead.
public struct SystemClock: SessionClock {
    private let origin = ContinuousClock.now

    /// Creates the clock; monotonic time starts at zero now.
    public init() {}

    public func wallClockNow() -> Date { Date() }

    public func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: origin.duration(to: ContinuousClock.now))
    }

    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}
