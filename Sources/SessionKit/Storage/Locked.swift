import Foundation

/// A value guarded by a lock. Backed by `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`,
/// whose futex-based lock ThreadSanitizer on Linux cannot see, so it reported false races through it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access to `value` happens with `lock` held.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
