import POSIXSync

/// A per-request deadline on the injected clock: an HTTP exchange the server leaves unanswered fails as a
/// timeout once `duration` of monotonic time has passed, so nothing waits forever on a silent server
/// ("Timeouts, 5xx and offline are retryable; keep the session and back off." (001)).
struct ExchangeDeadline: Sendable {
    let duration: Duration
    let clock: any SessionClock
    let taskExecutor: (any TaskExecutor)?

    /// What a raced exchange gave: its outcome in time, or a timeout with the exchange still running (`late`
    /// gives its outcome if it ever comes; cancel it to drop the reply).
    enum Raced<Outcome: Sendable>: Sendable {
        case finished(Outcome)
        case timedOut(late: Task<Outcome, Never>)
    }

    /// Runs `send` against the deadline; the first to finish decides. A cancelled caller gets `cancelled`.
    func race<Outcome: Sendable>(cancelled: Outcome, _ send: @escaping @Sendable () async -> Outcome) async -> Raced<Outcome> {
        let race = FirstOutcome<Raced<Outcome>>()
        let clock = clock, duration = duration
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Raced<Outcome>, Never>) in
                race.arm(continuation)
                let sender = Task(executorPreference: taskExecutor) { () -> Outcome in
                    let outcome = await send()
                    race.finish(.finished(outcome))
                    return outcome
                }
                let timer = Task(executorPreference: taskExecutor) {
                    // A cancelled timer (the exchange finished first) throws and decides nothing.
                    guard (try? await clock.sleep(for: duration)) != nil else { return }
                    race.finish(.timedOut(late: sender))
                }
                race.onFinish { cancelled in
                    timer.cancel()
                    if cancelled { sender.cancel() }
                }
            }
        } onCancel: {
            race.finish(.finished(cancelled), cancelled: true)
        }
    }
}

/// The outcome of whichever of an exchange and its deadline ends first; later outcomes are dropped, so the
/// caller is resumed exactly once.
private final class FirstOutcome<Outcome: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var early: Outcome?
        var finished: Bool?
        var cleanup: (@Sendable (_ cancelled: Bool) -> Void)?
    }

    private let state = Locked(State())

    /// The caller's continuation; resumed at once when an outcome came first (a cancellation before the start).
    func arm(_ continuation: CheckedContinuation<Outcome, Never>) {
        let early = state.withLock { state -> Outcome? in
            guard state.finished != nil else {
                state.continuation = continuation
                return nil
            }
            return state.early
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Runs `cleanup` when the race ends (now, if it has), told whether the caller was cancelled.
    func onFinish(_ cleanup: @escaping @Sendable (_ cancelled: Bool) -> Void) {
        let ended = state.withLock { state -> Bool? in
            if let finished = state.finished { return finished }
            state.cleanup = cleanup
            return nil
        }
        if let ended { cleanup(ended) }
    }

    func finish(_ outcome: Outcome, cancelled: Bool = false) {
        let (continuation, cleanup) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, (@Sendable (Bool) -> Void)?) in
            guard state.finished == nil else { return (nil, nil) }
            state.finished = cancelled
            if state.continuation == nil { state.early = outcome }
            defer { state.continuation = nil; state.cleanup = nil }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(returning: outcome)
        cleanup?(cancelled)
    }
}
