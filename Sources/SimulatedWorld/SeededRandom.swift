/// SplitMix64: a small, fast generator whose whole output follows from its seed. The runner uses nothing else.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed derived from a run seed and a name, so each case has its own stream whatever order cases run in.
    public static func derive(_ seed: UInt64, _ name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01B3
        }
        var generator = SeededRandom(seed: hash)
        return generator.next()
    }
}
