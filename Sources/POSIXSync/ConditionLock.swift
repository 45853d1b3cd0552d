#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with one condition variable. Timed waits run on the monotonic clock, so a change of the wall
/// clock neither shortens nor stretches them.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        mutex.deinitialize(count: 1)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Wakes every waiter. Call with the lock held.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// With the lock held: waits until `isReady()` holds or `deadline` passes (nil: no deadline).
    /// Returns the final value of `isReady()`.
    package func wait(until deadline: MonotonicDeadline?, for isReady: () -> Bool) -> Bool {
        while !isReady() {
            guard waitOnce(until: deadline) else { return isReady() }
        }
        return true
    }

    /// Waits once, with the lock held, until woken or until `deadline`. Returns false once the deadline has passed.
    private func waitOnce(until deadline: MonotonicDeadline?) -> Bool {
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return true
        }
        if deadline.hasPassed { return false }
        #if canImport(Darwin)
        let remaining = deadline.remainingNanoseconds
        var relative = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
        return pthread_cond_timedwait_relative_np(condition, mutex, &relative) != ETIMEDOUT
        #else
        var absolute = deadline.absoluteTime
        return pthread_cond_timedwait(condition, mutex, &absolute) != ETIMEDOUT
        #endif
    }
}
