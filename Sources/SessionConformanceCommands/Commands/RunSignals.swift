import ConformanceRunner
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM, SIGHUP (a closed terminal or SSH session, a CI runner's hang-up) and SIGQUIT during `run`
/// and `explore`: the first asks the run to stop (the current case ends, its adapter and every descendant are
/// killed, the reports are written marked incomplete, exit 130, 143, 129 or 131); a second one kills every
/// adapter and exits at once, saying no report was written. Handled on a dispatch queue, not in a signal handler, so the code
/// that runs may take locks and allocate. A signal the host process already handles with a handler of its own
/// (the test process's guard, which kills every process the tests started) is left to it; ``stop()`` puts back
/// what each signal had before.
final class RunSignals {
    private static let handled = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// Taken over whatever handles them: the Swift runtime's crash reporter claims SIGQUIT, and would print
    /// "Program crashed" and a backtrace while the run went on.
    private static let alwaysOurs: Set<Int32> = [SIGQUIT]
    private let sources: [any DispatchSourceSignal]
    private let previous: [(signal: Int32, action: sigaction)]

    private init(console: any Console) {
        let queue = DispatchQueue(label: "session-conformance.signals")
        var previous: [(signal: Int32, action: sigaction)] = []
        sources = Self.handled.compactMap { number in
            // Read without changing it, so a host's handler is never replaced, even for a moment.
            var before = sigaction()
            sigaction(number, nil, &before)
            guard Self.alwaysOurs.contains(number) || Self.isDefaultOrIgnored(before) else { return nil }
            previous.append((number, before))
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if RunInterruption.requested != nil {
                    RunInterruption.killAdaptersNow()
                    console.err("\nstopped at once: the adapters were killed and no report was written\n")
                    _exit(128 + number)
                }
                RunInterruption.request(signal: number)
                console.err("\n\(Self.name(number)): finishing the current case and "
                            + "writing the reports (send it again to stop at once)\n")
            }
            source.resume()
            return source
        }
        self.previous = previous
    }

    private static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "interrupted"
        case SIGHUP: "hung up"
        case SIGQUIT: "quit"
        default: "terminated"
        }
    }

    /// SIG_DFL is 0 and SIG_IGN is 1; any other value is a handler the host installed.
    private static func isDefaultOrIgnored(_ action: sigaction) -> Bool {
        #if canImport(Darwin)
        let handler = action.__sigaction_u.__sa_handler
        #else
        let handler = action.__sigaction_handler.sa_handler
        #endif
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
        for (number, action) in previous {
            var action = action
            sigaction(number, &action, nil)
        }
    }

    /// The exit code when a signal stopped the run.
    var exitCode: ExitCode? {
        switch RunInterruption.requested {
        case SIGINT?: .interrupted
        case SIGTERM?: .terminated
        case SIGHUP?: .hungUp
        case SIGQUIT?: .quit
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
