import SessionKit
import POSIXSync

/// One run of the app process in a `TestWorld`. Killing it is SIGKILL: every effect it has in flight
/// (held request, held storage write, sleep) never completes and never applies, and it makes no new one.
public final class ProcessHandle: Sendable, Hashable, CustomStringConvertible {
    /// 1 for the first process of a world, then 2, 3...
    public let id: Int
    private let alive = Locked(true)
    private let frozen = Locked<[any Sendable]>([])

    init(id: Int) {
        self.id = id
    }

    /// `false` once killed.
    public var isAlive: Bool { alive.withLock { $0 } }

    func kill() {
        alive.withLock { $0 = false }
    }

    /// What an effect of a killed process does: suspend forever, like the frozen process it belongs to.
    func suspendForever<T: Sendable>() async -> T {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<T, Never>) in
            frozen.withLock { $0.append(continuation) }
        }
    }

    public static func == (lhs: ProcessHandle, rhs: ProcessHandle) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "process#\(id)" }
}
