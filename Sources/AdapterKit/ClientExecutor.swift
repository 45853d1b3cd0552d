import Foundation

/// The one executor a hosted client runs on: every job of the client, one at a time, in the order enqueued, on the
/// thread that drains it (the host's). With every task of the client preferring it (`ClientEffects.taskExecutor`)
/// and every actor of the client isolated to it (`ClientEffects.serialExecutor`), "no job queued" means the client
/// has no runnable work: each of its tasks waits for the runner, for an HTTP response, or for nothing. That is what
/// lets the host answer a barrier, and makes a message-mode client deterministic (same messages in, same out).
///
/// A client that needs one executor for the whole process (a `@globalActor` whose `unownedExecutor` is static)
/// creates one and passes it to every `HostedClientAdapter` it makes.
public final class ClientExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs jobs until none is left.
    func drain() {
        while let job = next(waiting: false) { run(job) }
    }

    /// Runs jobs until none is left and `done()` holds, waiting for jobs that other threads enqueue meanwhile (an
    /// HTTP stack resuming the code that awaits its response). `done` is checked only when no job is queued.
    func drain(until done: () -> Bool) {
        while true {
            if let job = next(waiting: false) {
                run(job)
                continue
            }
            if done() { return }
            if let job = next(waiting: true) { run(job) }
        }
    }

    /// The first queued job; with `waiting`, blocks until there is one.
    private func next(waiting: Bool) -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while waiting && jobs.isEmpty { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    private func run(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
}
