/// The process exit codes, documented in `--help`, the README and docs/ci.md.
public enum ExitCode: Int32, Sendable {
    /// Everything checked passed.
    case success = 0
    /// The client under test failed a MUST requirement (used by `run`).
    case conformanceFailure = 1
    /// The specs have errors, or the command line was wrong.
    case specOrUsageError = 2
    /// The adapter could not be started or spoke no protocol: its first launch, before any case, did not end
    /// in a valid `hello` (command not found, not executable, exited or crashed, no `hello` within --timeout,
    /// a first line that is not a protocol v1 `hello`). No case ran. A crash or a protocol error later, in a
    /// case, is that case's `error` verdict and exit 1: the client started, so the client is at fault.
    case adapterNotStarted = 3
    /// `run` was stopped by SIGHUP (128 + 1), handled as SIGTERM is; the reports written are marked incomplete.
    case hungUp = 129
    /// `run` was stopped by SIGINT (128 + 2); the reports written are marked incomplete.
    case interrupted = 130
    /// `run` was stopped by SIGQUIT (128 + 3), handled as SIGTERM is (no core dump, no crash report).
    case quit = 131
    /// `run` was stopped by SIGTERM (128 + 15); the reports written are marked incomplete.
    case terminated = 143
}
