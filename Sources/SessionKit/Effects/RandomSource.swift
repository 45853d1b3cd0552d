/// Randomness for backoff jitter and session identifiers. Inject a seeded source for determinism.
public protocol RandomSource: Sendable {
    /// The next 64 random bits.
    func next() -> UInt64
}

extension RandomSource {
    /// A value in `0..<1`.
    func unitInterval() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
