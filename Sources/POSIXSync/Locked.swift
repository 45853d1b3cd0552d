#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: what `Synchronization.Mutex` gives, on every platform the package supports
/// (Mutex and Atomic need macOS 15), and visible to ThreadSanitizer, which cannot see the futex behind Mutex on
/// Linux and so reported false races through it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access to `value` happens with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked where Value: BinaryInteger {
    /// Adds one and returns the value before: the next index for a worker taking items in turn.
    package func takeNext() -> Value {
        withLock { value in
            defer { value += 1 }
            return value
        }
    }

    package var current: Value { withLock { $0 } }
}
