import POSIXSync

/// The session generation (epoch). It increases on sign-out, account switch, rejection and sign-in;
/// every request, response and refresh result is tagged with it, and a result whose generation is no
/// longer current is discarded.
public struct SessionGeneration: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The generation number.
    public var rawValue: UInt64

    /// Wraps a generation number.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The generation a process starts in.
    public static let launch = SessionGeneration(rawValue: 1)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}

/// The current generation, readable from any isolation domain. Only the state machine advances it;
/// storage and cache writers read it inside their critical sections to drop stale writes.
final class GenerationCounter: Sendable {
    private let value = Locked<UInt64>(SessionGeneration.launch.rawValue)

    var current: SessionGeneration { SessionGeneration(rawValue: value.current) }

    func advance() {
        value.withLock { $0 += 1 }
    }
}
