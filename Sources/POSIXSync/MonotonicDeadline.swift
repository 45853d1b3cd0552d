#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time on the monotonic clock (`CLOCK_MONOTONIC`), which a change of the wall clock does not move.
package struct MonotonicDeadline: Sendable {
    /// Nanoseconds since the clock's arbitrary origin.
    package let nanoseconds: UInt64

    package init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// The longest wait a deadline stands for: ten years is "forever" for a conformance run and keeps the
    /// arithmetic far from overflow.
    private static let longestWait: Int64 = 10 * 365 * 24 * 3600

    package static func now() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// A duration in nanoseconds, 0 when negative and at most `longestWait`.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        return UInt64(min(seconds, longestWait)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }

    /// The deadline `duration` from now; a zero or negative duration has passed already.
    package static func after(_ duration: Duration) -> MonotonicDeadline {
        MonotonicDeadline(nanoseconds: now() + nanoseconds(duration))
    }

    package var hasPassed: Bool { Self.now() >= nanoseconds }

    /// Nanoseconds left until the deadline, 0 once it has passed.
    package var remainingNanoseconds: UInt64 {
        let now = Self.now()
        return nanoseconds > now ? nanoseconds - now : 0
    }

    /// The deadline as an absolute `timespec` on the monotonic clock.
    package var absoluteTime: timespec {
        timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }

    /// Milliseconds left, rounded up, for `poll`.
    package var remainingMilliseconds: Int32 {
        Int32(clamping: (remainingNanoseconds + 999_999) / 1_000_000)
    }
}
