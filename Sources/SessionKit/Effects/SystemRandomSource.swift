/// The production randomness: the system generator. Tests and runners inject a seeded source instead.
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}

    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}
