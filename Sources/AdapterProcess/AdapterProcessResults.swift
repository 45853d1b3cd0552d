import ConformanceProtocol

extension AdapterProcess {
    /// How the adapter process ended.
    public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this code (0 to 255).
        case exited(Int32)
        /// A signal ended it (9 for SIGKILL).
        case signalled(Int32)
        /// It ended, but something else in this process collected its status first (a `SIGCHLD` set to
        /// `SIG_IGN`, or a `waitpid(-1)`), so how is unknown.
        case unknown

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let signal): "killed by signal \(signal)\(Self.signalName(signal).map { " (\($0))" } ?? "")"
            case .unknown: "ended (status unknown)"
            }
        }

        private static func signalName(_ signal: Int32) -> String? {
            switch signal {
            case 1: "SIGHUP"
            case 2: "SIGINT"
            case 3: "SIGQUIT"
            case 4: "SIGILL"
            case 6: "SIGABRT"
            case 9: "SIGKILL"
            case 11: "SIGSEGV"
            case 13: "SIGPIPE"
            case 15: "SIGTERM"
            default: nil
            }
        }
    }

    /// What ``AdapterProcess/receive(timeout:)`` found on the adapter's stdout.
    public enum Received: Sendable, Hashable {
        /// The next line, without its terminator. Empty lines are skipped.
        case line(String)
        /// stdout and stderr are closed, every line was received and the process has ended, so the
        /// stderr tail is complete. Returned again on every later call.
        case endOfStream(ExitStatus)
        /// Nothing arrived within the timeout (a hang): no line, and not yet the end of stdout, of stderr
        /// and of the process together.
        case timedOut
        /// stdout broke the framing (a line not UTF-8, over the limit, or cut off by the end of the
        /// stream). Comes after every line received before the fault, and again on every later call.
        case framingError(FramingError)
    }
}
