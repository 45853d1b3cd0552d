import ConformanceProtocol
import Foundation

/// The one thread the client runs on. Every job of the client's actors and every runner message is handled
/// here, one at a time; URLSession's own threads only enqueue the continuation of the code awaiting a
/// response. It is also every client task's preferred task executor, so a task resumed from another thread
/// (a reply, a response, a finished task) comes back here, never to the global pool. So "no job queued" means the client has no runnable work: it waits for a reply, a response,
/// or nothing. That is what lets the host answer a barrier.
final class ClientExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    static let shared = ClientExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var messages: [RunnerMessage?] = []

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// A runner message from the stdin reader; nil when stdin closed.
    func post(_ message: RunnerMessage?) {
        condition.lock()
        messages.append(message)
        condition.broadcast()
        condition.unlock()
    }

    /// The next runner message, running every queued job while it waits.
    func nextMessage() -> RunnerMessage? {
        while true {
            condition.lock()
            while jobs.isEmpty && messages.isEmpty { condition.wait() }
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                run(job)
                continue
            }
            let message = messages.removeFirst()
            condition.unlock()
            return message
        }
    }

    /// Runs jobs until none is queued and `done()` holds; waits for URLSession to enqueue more meanwhile.
    func runUntilIdle(where done: () -> Bool) {
        while true {
            condition.lock()
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                run(job)
                continue
            }
            condition.unlock()
            if done() { return }
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            condition.unlock()
        }
    }

    private func run(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
}

/// The client's actor: the app's session code runs on the host's loop thread.
@globalActor actor ClientActor {
    static let shared = ClientActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { ClientExecutor.shared.asUnownedSerialExecutor() }
}
