/// The ranges of the numbers a case may give, so that nothing that lints clean can trap or allocate
/// without bound when it runs (docs/spec-format.md, "Limits").
public enum NumericLimits {
    /// Commands one `request` step sends at once, and times one `fault` is injected.
    public static let repetitions = 1...10_000
    /// Counts an `expect` step compares with.
    public static let observedCount = 0...1_000_000
    /// Seconds of time: `advance.seconds`, and the lifetimes and reuse interval of `configure` (about 31 years).
    public static let seconds = 0.0...1e9
    /// Seconds of `skewClock.seconds`, either way.
    public static let skew = -1e9...1e9
    /// `schedule.seed`: fits any YAML or JSON integer reader.
    public static let scheduleSeed = 0...4_294_967_295
    /// `schedule.delay`: the percent chance that a reply is held over to the next round.
    public static let scheduleDelay = 0...100
    /// `schedule.changes`: the priority change points of a `strategy: pct` schedule.
    public static let scheduleChanges = 0...8

    /// A bound in words for an error message: `1e9` reads as `1000000000`.
    static func describe(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
