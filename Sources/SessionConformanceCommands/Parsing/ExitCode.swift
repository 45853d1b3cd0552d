/// The process exit codes, documented in `--help` and the README.
public enum ExitCode: Int32, Sendable {
    /// Everything checked passed.
    case success = 0
    /// The client under test failed a MUST requirement (used by `run`).
    case conformanceFailure = 1
    /// The specs have errors, or the command line was wrong.
    case specOrUsageError = 2
    /// `run` was stopped by SIGINT (128 + 2); the reports written are marked incomplete.
    case interrupted = 130
    /// `run` was stopped by SIGTERM (128 + 15); the reports written are marked incomplete.
    case terminated = 143
}
