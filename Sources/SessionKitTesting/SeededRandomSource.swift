import POSIXSync
import SessionKit
import SimulatedWorld

/// The world's `SeededRandom` as SessionKit's `RandomSource`: the same seed gives the same sequence.
public final class SeededRandomSource: RandomSource {
    private let generator: Locked<SeededRandom>

    /// Creates a generator from `seed`.
    public init(seed: UInt64) {
        generator = Locked(SeededRandom(seed: seed))
    }

    public func next() -> UInt64 {
        generator.withLock { $0.next() }
    }
}
