import Foundation

/// A value awaited once and set once, by whichever of several parties comes first; later ones are ignored.
final class OnceContinuation<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `state` is guarded by `lock`.
    private enum State {
        case empty
        case awaited(CheckedContinuation<Value, Never>)
        case set(Value)
    }

    private let lock = NSLock()
    private var state = State.empty

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = lock.withLock {
                    if case .set(let value) = state { return value }
                    state = .awaited(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// Sets the value unless one was set already; whether this call set it.
    @discardableResult
    func resume(_ value: Value) -> Bool {
        let (first, waiting): (Bool, CheckedContinuation<Value, Never>?) = lock.withLock {
            switch state {
            case .set: return (false, nil)
            case .empty:
                state = .set(value)
                return (true, nil)
            case .awaited(let continuation):
                state = .set(value)
                return (true, continuation)
            }
        }
        waiting?.resume(returning: value)
        return first
    }
}
