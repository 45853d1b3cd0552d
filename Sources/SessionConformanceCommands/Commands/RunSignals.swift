import ConformanceRunner
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM during `run`: the first asks the run to stop (the current case ends, its adapter and
/// every descendant are killed, the reports are written marked incomplete, exit 130 or 143); a second one
/// kills every adapter and exits at once. Handled on a dispatch queue, not in a signal handler, so the code
/// that runs may take locks and allocate.
final class RunSignals {
    private static let handled = [SIGINT, SIGTERM]
    private let sources: [any DispatchSourceSignal]

    private init(console: any Console) {
        let queue = DispatchQueue(label: "session-conformance.signals")
        sources = Self.handled.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if RunInterruption.requested != nil {
                    RunInterruption.killAdaptersNow()
                    _exit(128 + number)
                }
                RunInterruption.request(signal: number)
                console.err("\n\(number == SIGINT ? "interrupted" : "terminated"): finishing the current case and "
                            + "writing the reports (send it again to stop at once)\n")
            }
            source.resume()
            return source
        }
    }

    /// Starts handling both signals until ``stop()``.
    static func start(console: any Console) -> RunSignals {
        RunInterruption.reset()
        return RunSignals(console: console)
    }

    /// Back to the default dispositions.
    func stop() {
        for source in sources { source.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
    }

    /// The exit code when a signal stopped the run.
    var exitCode: ExitCode? {
        switch RunInterruption.requested {
        case SIGINT?: .interrupted
        case SIGTERM?: .terminated
        default: nil
        }
    }
}

extension SessionConformance {
    /// For the CLI process: adopt the orphans of adapter processes so that none outlives the run (Linux).
    public static func trackAdapterDescendants() {
        RunInterruption.trackAdapterDescendants()
    }
}
