/// How much wall time one step may take before the runner calls the adapter hung. The base (`--timeout`) is what a
/// step of one command gets; a step that sends more commands (a `request` with `count: 1000`) does more work, so its
/// limit grows with them: one more base per `commandsPerBase` commands. Wall time decides only a hang, never a verdict.
public enum StepTimeLimit {
    /// Commands that add one base to a step's limit.
    public static let commandsPerBase = 100

    /// The limit of a step that sent `commands` commands (at least the base, however few).
    public static func limit(base: Duration, commands: Int) -> Duration {
        guard commands > 1 else { return base }
        return base + base * (Double(commands - 1) / Double(commandsPerBase))
    }
}
