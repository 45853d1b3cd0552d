/// Bounded exponential backoff with jitter: attempt `n` waits
/// `min(initialDelay * multiplier^(n-1), maximumDelay)`, shortened by up to `jitter` of itself at random.
public struct BackoffPolicy: Sendable, Hashable {
    /// The delay after the first failure.
    public var initialDelay: Duration
    /// Growth factor per further failure.
    public var multiplier: Double
    /// The cap on any single delay.
    public var maximumDelay: Duration
    /// Automatic retries stop after this many failed attempts (`nil`: never stop, the delay stays capped).
    public var maximumAttempts: Int?
    /// Fraction of the delay that is randomised, in `0...1`.
    public var jitter: Double

    /// Creates a policy; `jitter` is clamped to `0...1`.
    public init(initialDelay: Duration, multiplier: Double = 2, maximumDelay: Duration, maximumAttempts: Int?, jitter: Double = 0.5) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Whether another automatic attempt follows `failedAttempts` failures.
    public func allowsRetry(after failedAttempts: Int) -> Bool {
        guard let maximumAttempts else { return true }
        return failedAttempts < maximumAttempts
    }

    /// The delay after the `failedAttempts`-th failure (1-based); `unitRandom` is in `0..<1`.
    public func delay(afterFailure failedAttempts: Int, unitRandom: Double) -> Duration {
        let exponent = Double(max(failedAttempts - 1, 0))
        let uncapped = Self.seconds(initialDelay) * pow(multiplier, exponent)
        let capped = min(uncapped, Self.seconds(maximumDelay))
        let jittered = capped * (1 - jitter * unitRandom)
        return .milliseconds(Int64((jittered * 1000).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    while remaining > 0 {
        result *= base
        remaining -= 1
        if result > 1e12 { break }
    }
    return result
}
