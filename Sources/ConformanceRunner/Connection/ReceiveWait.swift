import AdapterProcess

/// What an adapter process has sent so far, as far as the diagnosis of a wait that ends needs it: whether it ever said
/// anything, how much in the current step, and when it last did.
struct MessageHistory {
    /// Lines received from the process since it started (or was reset).
    private(set) var total = 0
    /// Lines received since the current step began.
    private(set) var inStep = 0
    private(set) var last: ContinuousClock.Instant?

    mutating func noteMessage(at instant: ContinuousClock.Instant) {
        total += 1
        inStep += 1
        last = instant
    }

    mutating func beginStep() { inStep = 0 }

    /// A process reset for another case: it has said nothing yet.
    mutating func restart() { self = MessageHistory() }
}

/// One wait for an adapter message, in short slices so that it notices, between them: the run being interrupted, the
/// step running out of its time, an adapter that exited while a process it started still holds its stdout open, and
/// one that closed its stdout but runs on. When the wait ends, the failure names what happened (see `check`).
///
/// The step's time (`timeout`) bounds every wait in it, so a wait ends by `stepStarted + timeout`, except that an exit or
/// a closed stdout seen near that deadline still gets its `exitGrace`, so the diagnosis says which it was.
///
/// Wall-clock time by nature (it detects hangs); it only ever decides error verdicts.
struct ReceiveWait {
    /// How often the wait looks up from the pipe.
    static let slice: Duration = .milliseconds(250)
    /// How long after the adapter exited its stdout may stay open, or after it closed its stdout the process may run on,
    /// before the case says so.
    static let exitGrace: Duration = .seconds(1)
    /// At the step's deadline, an adapter whose last message came at least this long ago (at most half the timeout)
    /// went silent; one that sent something more recently kept sending without settling.
    static let silence: Duration = .seconds(1)

    let timeout: Duration
    let stepStarted: ContinuousClock.Instant
    let history: MessageHistory
    private var exitSeen: ContinuousClock.Instant?
    private var closedSeen: ContinuousClock.Instant?

    init(timeout: Duration, stepStarted: ContinuousClock.Instant, history: MessageHistory) {
        self.timeout = timeout
        self.stepStarted = stepStarted
        self.history = history
    }

    private var deadline: ContinuousClock.Instant {
        let graced = [exitSeen, closedSeen].compactMap { $0.map { $0 + Self.exitGrace } }
        return ([stepStarted + timeout] + graced).max()!
    }

    /// How long the next slice may wait: never past the deadline.
    func nextSlice() -> Duration {
        max(.zero, min(Self.slice, deadline - .now))
    }

    /// After a slice passed with nothing: throws when the wait must end, returns to keep waiting. The failure says what
    /// happened: the run was interrupted; the adapter exited (while a process it started holds its output open); it
    /// closed its stdout and ran on; it never sent a message; it went silent; or it kept sending without settling.
    mutating func check(_ process: AdapterProcess, tail: () -> String) throws(AdapterFailure) {
        let now = ContinuousClock.now
        if RunInterruption.requested != nil {
            throw Self.end(process, .interrupted, "the run was interrupted", tail)
        }
        if let status = process.exitStatus {
            guard Self.graceOver(&exitSeen, now) else { return }
            throw Self.end(process, .crashed, "the adapter exited (\(status)) while a process it started still holds its "
                           + "stdout or stderr open", tail)
        }
        if process.outputClosed {
            guard Self.graceOver(&closedSeen, now) else { return }
            throw Self.end(process, .hung, "the adapter closed its stdout but kept running; the runner waited \(Self.exitGrace) "
                           + "for it to exit", tail)
        }
        guard now >= deadline else { return }
        throw Self.end(process, .hung, stepOverMessage(at: now), tail)
    }

    /// After a line arrived: a step whose time is up while the adapter is still sending ends here, however fast the
    /// lines come (an adapter that floods the pipe never lets a slice pass empty).
    func checkFlood(_ process: AdapterProcess, tail: () -> String) throws(AdapterFailure) {
        guard history.inStep > 0, ContinuousClock.now - stepStarted >= timeout else { return }
        throw Self.end(process, .hung, Self.flooding(timeout), tail)
    }

    /// Whether `exitGrace` has passed since `seen`, which is set to `now` the first time.
    private static func graceOver(_ seen: inout ContinuousClock.Instant?, _ now: ContinuousClock.Instant) -> Bool {
        let since = seen ?? now
        seen = since
        return now - since >= exitGrace
    }

    /// Kills the process (which waits for the rest of its stderr, so the tail is complete) and says why.
    private static func end(_ process: AdapterProcess, _ code: AdapterFailure.Code, _ message: String,
                            _ tail: () -> String) -> AdapterFailure {
        _ = process.kill()
        return AdapterFailure(code, message, stderrTail: tail())
    }

    /// Why the step's time ran out, from what the adapter sent.
    private func stepOverMessage(at now: ContinuousClock.Instant) -> String {
        if history.total == 0 {
            return "the adapter sent no message within \(timeout) of starting (no hello)"
        }
        if history.inStep == 0 {
            return "the adapter sent nothing for \(timeout) while the runner waited for it"
        }
        if let last = history.last, now - last < min(Self.silence, timeout / 2) {
            return Self.flooding(timeout)
        }
        let count = history.inStep == 1 ? "1 message" : "\(history.inStep) messages"
        return "the adapter went silent after \(count) in this step and sent nothing more before the step's \(timeout) were up"
    }

    private static func flooding(_ timeout: Duration) -> String {
        "the step took longer than \(timeout): the adapter kept sending messages without settling"
    }
}
