import SessionKit

/// SplitMix64: the same seed gives the same sequence.
public final class SeededRandom: RandomSource {
    private let state: Locked<UInt64>

    /// Creates a generator from `seed`.
    public init(seed: UInt64) {
        state = Locked(seed)
    }

    public func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
