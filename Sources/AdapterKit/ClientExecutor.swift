import Foundation

/// Runs every job of the client on the thread that calls `drain()`, one at a time, in the order they
/// were enqueued. With all of SessionKit's tasks preferring this executor, "drain returned" means the
/// client has no runnable work left: every task waits for the runner. That is what makes the reference
/// deterministic (same messages in, same messages out) and lets it answer a barrier at once.
final class SerialJobExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        lock.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Runs jobs until none is left.
    func drain() {
        while true {
            lock.lock()
            guard !jobs.isEmpty else {
                lock.unlock()
                return
            }
            let job = jobs.removeFirst()
            lock.unlock()
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }
}
