import AdapterProcess

/// One wait for an adapter message, in short slices so that it notices, between them: the run being
/// interrupted, the step running past its time while the adapter keeps sending lines that settle nothing, and
/// an adapter that has exited while a process it started still holds its stdout open.
///
/// Wall-clock time by nature (it detects hangs); it only ever decides error verdicts.
struct ReceiveWait {
    /// How often the wait looks up from the pipe.
    static let slice: Duration = .milliseconds(250)
    /// How long after the adapter exited its stdout may stay open before the case says so.
    static let exitGrace: Duration = .seconds(1)

    let timeout: Duration
    let stepStarted: ContinuousClock.Instant
    private let started = ContinuousClock.now
    private var exitSeen: ContinuousClock.Instant?

    init(timeout: Duration, stepStarted: ContinuousClock.Instant) {
        self.timeout = timeout
        self.stepStarted = stepStarted
    }

    /// How long the next slice may wait: never past the gap or step deadline.
    func nextSlice() -> Duration {
        let now = ContinuousClock.now
        let left = min(timeout - (now - started), timeout - (now - stepStarted))
        return max(.zero, min(Self.slice, left))
    }

    /// After a slice passed with nothing: throws when the wait must end, returns to keep waiting.
    mutating func check(_ process: AdapterProcess, tail: () -> String) throws(AdapterFailure) {
        let now = ContinuousClock.now
        if RunInterruption.requested != nil {
            _ = process.kill()
            throw AdapterFailure(.interrupted, "the run was interrupted", stderrTail: tail())
        }
        if let status = process.exitStatus {
            let seen = exitSeen ?? now
            exitSeen = seen
            if now - seen >= Self.exitGrace {
                _ = process.kill()
                throw AdapterFailure(.crashed, "the adapter exited (\(status)) while a process it started still holds its "
                                     + "stdout or stderr open", stderrTail: tail())
            }
        }
        if now - started >= timeout {
            _ = process.kill()
            throw AdapterFailure(.hung, "the adapter sent nothing for \(timeout) while the runner waited for it",
                                 stderrTail: tail())
        }
        if now - stepStarted >= timeout {
            _ = process.kill()
            throw AdapterFailure(.hung, "the step took longer than \(timeout): the adapter kept sending messages "
                                 + "without settling", stderrTail: tail())
        }
    }
}
