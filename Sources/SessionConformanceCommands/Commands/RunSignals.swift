import ConformanceRunner
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session, a CI runner's hang-up) during `run` and
/// `explore`: the first asks the run to stop (the current case ends, its adapter and
/// every descendant are killed, the reports are written marked incomplete, exit 130, 143 or 129); a second one
/// kills every adapter and exits at once. Handled on a dispatch queue, not in a signal handler, so the code
/// that runs may take locks and allocate. A signal the host process already handles with a handler of its own
/// (the test process's guard, which kills every process the tests started) is left to it; ``stop()`` puts back
/// what each signal had before.
final class RunSignals {
    private typealias SignalHandler = @convention(c) (Int32) -> Void
    private static let handled = [SIGINT, SIGTERM, SIGHUP]
    private let sources: [any DispatchSourceSignal]
    private let previous: [(signal: Int32, handler: SignalHandler?)]

    private init(console: any Console) {
        let queue = DispatchQueue(label: "session-conformance.signals")
        var previous: [(signal: Int32, handler: SignalHandler?)] = []
        sources = Self.handled.compactMap { number in
            // Read without changing it, so a host's handler is never replaced, even for a moment.
            let before = Self.currentHandler(number)
            guard Self.isDefaultOrIgnored(before) else { return nil }
            previous.append((number, before))
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if RunInterruption.requested != nil {
                    RunInterruption.killAdaptersNow()
                    _exit(128 + number)
                }
                RunInterruption.request(signal: number)
                console.err("\n\(number == SIGINT ? "interrupted" : number == SIGHUP ? "hung up" : "terminated"): finishing the current case and "
                            + "writing the reports (send it again to stop at once)\n")
            }
            source.resume()
            return source
        }
        self.previous = previous
    }

    private static func currentHandler(_ number: Int32) -> SignalHandler? {
        var current = sigaction()
        sigaction(number, nil, &current)
        #if canImport(Darwin)
        return current.__sigaction_u.__sa_handler
        #else
        return current.__sigaction_handler.sa_handler
        #endif
    }

    /// SIG_DFL is 0 and SIG_IGN is 1; any other value is a handler the host installed.
    private static func isDefaultOrIgnored(_ handler: SignalHandler?) -> Bool {
        let value = unsafeBitCast(handler, to: Int.self)
        return value == 0 || value == 1
    }

    /// Starts handling the signals until ``stop()``.
    static func start(console: any Console) -> RunSignals {
        RunInterruption.reset()
        return RunSignals(console: console)
    }

    /// Back to the dispositions the signals had before ``start(console:)``.
    func stop() {
        for source in sources { source.cancel() }
        for (number, handler) in previous { signal(number, handler) }
    }

    /// The exit code when a signal stopped the run.
    var exitCode: ExitCode? {
        switch RunInterruption.requested {
        case SIGINT?: .interrupted
        case SIGTERM?: .terminated
        case SIGHUP?: .hungUp
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
