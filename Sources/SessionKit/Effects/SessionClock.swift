import Foundation

/// Time as SessionKit sees it: the device wall clock, a monotonic clock, and sleeps.
///
/// Token expiry is computed only from the monotonic clock, so a device wall clock that is hours or days
/// off changes nothing. The wall clock is used for log timestamps only.
public protocol SessionClock: Sendable {
    /// The device's wall-clock time, which the user or the network may set to anything.
    func wallClockNow() -> Date
    /// A clock that only moves forward, at a steady rate, from an arbitrary origin.
    func monotonicNow() -> MonotonicInstant
    /// Suspends for `duration` of monotonic time. Throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// A point on the monotonic clock, as an offset from the clock's own origin.
public struct MonotonicInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Elapsed monotonic time since the clock's origin.
    public var sinceOrigin: Duration

    /// Creates an instant.
    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }
    public static func + (lhs: Self, rhs: Duration) -> Self { Self(sinceOrigin: lhs.sinceOrigin + rhs) }
    public static func - (lhs: Self, rhs: Duration) -> Self { Self(sinceOrigin: lhs.sinceOrigin - rhs) }

    public var description: String { "mono+\(sinceOrigin)" }
}
