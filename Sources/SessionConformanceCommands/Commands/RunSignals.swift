import ConformanceRunner
import Foundation
import POSIXSync
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
/// adapter and exits at once, saying no report was written. A signal ignored when the runner started stays
/// ignored, as Unix programs do (`nohup` keeps the run through a hang-up, a script's background job keeps it
/// through the terminal's Ctrl-C). A signal the host process already handles with a handler of its own (the test
/// process's guard, which kills every process the tests started) is left to it; ``stop()`` puts back what each
/// signal had before.
///
/// The handler only writes the signal's number to a pipe, and a thread of its own, which unblocks the signals,
/// reads it and does the work, so that work may take locks and allocate. Not a dispatch signal source: on Linux
/// it depends on the signal mask of every thread of the process, which the runner inherits from whoever started
/// it, and a second signal was seen to leave the run going on.
final class RunSignals {
    fileprivate static let handled = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// Taken over whatever handles them: the Swift runtime's crash reporter claims SIGQUIT, and would print
    /// "Program crashed" and a backtrace while the run went on.
    private static let alwaysOurs: Set<Int32> = [SIGQUIT]
    private let previous: [(signal: Int32, action: sigaction)]

    private init(console: any Console) {
        SignalPipe.listen { number in
            if RunInterruption.requested != nil {
                RunInterruption.killAdaptersNow()
                console.err("\nstopped at once: the adapters were killed and no report was written\n")
                _exit(128 + number)
            }
            RunInterruption.request(signal: number)
            console.err("\n\(Self.name(number)): finishing the current case and "
                        + "writing the reports (send it again to stop at once)\n")
        }
        var previous: [(signal: Int32, action: sigaction)] = []
        for number in Self.handled {
            // Read without changing it, so a host's handler is never replaced, even for a moment.
            var before = sigaction()
            sigaction(number, nil, &before)
            switch Self.handler(before) {
            case .ignored: continue
            case .installed where !Self.alwaysOurs.contains(number): continue
            default: break
            }
            previous.append((number, before))
            var action = SignalPipe.forwardingAction()
            sigaction(number, &action, nil)
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

    private enum Disposition { case byDefault, ignored, installed }

    /// SIG_DFL is 0 and SIG_IGN is 1; any other value is a handler the host installed.
    private static func handler(_ action: sigaction) -> Disposition {
        #if canImport(Darwin)
        let handler = action.__sigaction_u.__sa_handler
        #else
        let handler = action.__sigaction_handler.sa_handler
        #endif
        switch unsafeBitCast(handler, to: Int.self) {
        case 0: return .byDefault
        case 1: return .ignored
        default: return .installed
        }
    }

    /// Starts handling the signals until ``stop()``.
    static func start(console: any Console) -> RunSignals {
        RunInterruption.reset()
        return RunSignals(console: console)
    }

    /// Back to the dispositions the signals had before ``start(console:)``.
    func stop() {
        for (number, action) in previous {
            var action = action
            sigaction(number, &action, nil)
        }
        SignalPipe.listen(nil)
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

/// One pipe and one reading thread for the process's life: the handler writes each signal's number, the thread
/// hands it to the current listener. Both ends close on exec, so no adapter inherits them; the write end does not
/// block, so a handler never waits on a full pipe (the signals it would drop are repeats of ones already read).
private enum SignalPipe {
    /// Written once, when `reading` first runs, which `listen` forces before any handler that reads it is
    /// installed (`sigaction` is a system call: the write is visible to every handler it installs). A plain
    /// load is async-signal-safe; a lock is not, and Synchronization's atomics need macOS 15.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    private static let listener = Locked<(@Sendable (Int32) -> Void)?>(nil)
    private static let reading: Void = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        writeEnd = ends[1]
        let readEnd = ends[0]
        let thread = Thread {
            // A runner started by a process whose thread blocked these signals (a dispatch worker of the test
            // host, a CI agent) inherits that mask in every thread; this one takes them, so they are never held.
            var taken = sigset_t()
            sigemptyset(&taken)
            for number in RunSignals.handled { sigaddset(&taken, number) }
            pthread_sigmask(SIG_UNBLOCK, &taken, nil)
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let current = listener.withLock { $0 }
                current?(Int32(byte))
            }
        }
        thread.name = "session-conformance.signals"
        thread.start()
    }()

    /// Sets what each signal read from now on is handed to; nil drops them.
    static func listen(_ handler: (@Sendable (Int32) -> Void)?) {
        _ = reading
        listener.withLock { $0 = handler }
    }

    /// A `sigaction` whose handler writes the signal's number to the pipe; system calls it interrupts restart.
    static func forwardingAction() -> sigaction {
        var action = sigaction()
        #if canImport(Darwin)
        action.__sigaction_u.__sa_handler = forward
        #else
        action.__sigaction_handler.sa_handler = forward
        #endif
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        return action
    }

    /// Async-signal-safe: a load and write(2), with errno put back for the code it interrupted.
    private static let forward: @convention(c) (Int32) -> Void = { number in
        let saved = errno
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(writeEnd, &byte, 1)
        errno = saved
    }
}

extension SessionConformance {
    /// For the CLI process: adopt the orphans of adapter processes so that none outlives the run (Linux).
    public static func trackAdapterDescendants() {
        RunInterruption.trackAdapterDescendants()
    }
}
