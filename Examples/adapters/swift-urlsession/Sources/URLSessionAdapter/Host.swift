import AdapterKit
import ConformanceProtocol
import Foundation

/// Protocol v1 in loopback mode (docs/adapter-protocol.md): commands come in on stdin; storage, preferences,
/// transitions, UI events and logs go out on stdout; HTTP goes to the runner's server through URLSession.
/// The host counts requests started and responses delivered to the client, for the barriers.
final class Host: @unchecked Sendable {
    static let shared = Host()

    private let lock = NSLock()
    private var waiting: [String: CheckedContinuation<ReplyBody?, Never>] = [:]
    /// Sleeps whose reply runs code instead of resuming a caller: the deadlines of requests (`--request-timeout`).
    private var timers: [String: @ClientActor @Sendable () -> Void] = [:]
    private var nextEffect = 0
    private var nextTag = 0
    private var started = 0
    private var delivered = 0
    /// Tasks created but not yet running on the client's executor: work the barrier must wait for.
    private var unstarted = 0

    func send(_ message: AdapterMessage) {
        let line = message.line + "\n"
        lock.withLock { FileHandle.standardOutput.write(Data(line.utf8)) }
    }

    /// An effect the runner answers with a `reply`. Isolated to the client's actor, so the reply resumes the
    /// caller on the client's executor, where the barrier sees it.
    @ClientActor func effect(_ make: (String) -> AdapterMessage) async -> ReplyBody? {
        let id = lock.withLock {
            nextEffect += 1
            return "e\(nextEffect)"
        }
        let message = make(id)
        return await withCheckedContinuation { continuation in
            lock.withLock { waiting[id] = continuation }
            send(message)
        }
    }

    /// A `sleep` of `seconds` on the runner's virtual clock whose reply runs `fired` on the client's executor; its
    /// id, for `abandon(_:reason:)` when it is no longer needed.
    func startSleep(seconds: Double, fired: @escaping @ClientActor @Sendable () -> Void) -> String {
        let id = lock.withLock {
            nextEffect += 1
            let id = "e\(nextEffect)"
            timers[id] = fired
            return id
        }
        send(.sleep(id: id, seconds: seconds))
        return id
    }

    /// A tag for a request's `X-Conformance-Request` header, unique in the process: what an `abandon` of it names.
    func newRequestTag() -> String {
        lock.withLock {
            nextTag += 1
            return "r\(nextTag)"
        }
    }

    /// The client gives up on a sleep (its timer is dropped) or a tagged request: the runner never answers it.
    func abandon(_ id: String, reason: String) {
        lock.withLock { _ = timers.removeValue(forKey: id) }
        send(.abandon(id: id, reason: reason))
    }

    /// An unstructured task of the client, counted until its first job runs on the client's executor.
    @discardableResult
    func spawn<T: Sendable>(_ body: @escaping @ClientActor @Sendable () async throws -> T) -> Task<T, any Error> {
        lock.withLock { unstarted += 1 }
        return Task(executorPreference: ClientExecutor.shared) {
            Host.shared.taskBegan()
            return try await body()
        }
    }

    private func taskBegan() { lock.withLock { unstarted -= 1 } }

    func requestStarted() { lock.withLock { started += 1 } }
    func responseDelivered() { lock.withLock { delivered += 1 } }

    /// The command the current task serves, for `X-Conformance-Cause`.
    var cause: String? { CommandContext.id }

    // MARK: - The loop

    func run(hello: AdapterMessage, client: SessionClient) -> Never {
        send(hello)
        startReadingStandardInput()
        let executor = ClientExecutor.shared
        while let message = executor.nextMessage() {
            switch message {
            case .welcome(_, _, let baseURL, _):
                guard let baseURL, let url = URL(string: baseURL) else { fail("welcome without an http.baseURL") }
                spawn { client.connect(to: url) }
            case .error(let info):
                fail("the runner refused us: \(info.code)")
            case .command(let command):
                spawn {
                    await CommandContext.$id.withValue(command.id) {
                        let result = await client.perform(command)
                        Host.shared.send(.result(result))
                    }
                }
            case .reply(let id, let body):
                if let fired = lock.withLock({ timers.removeValue(forKey: id) }) {
                    spawn { fired() }
                    continue
                }
                let continuation = lock.withLock { waiting.removeValue(forKey: id) }
                continuation?.resume(returning: body)
            case .clock, .reset:
                break
            case .barrier(let id, let answered):
                executor.runUntilIdle { lock.withLock { delivered >= (answered ?? 0) && unstarted == 0 } }
                send(.barrier(id: id, httpStarted: lock.withLock { started }))
            }
        }
        exit(0)
    }

    private func startReadingStandardInput() {
        let thread = Thread {
            var framer = JSONLineFramer()
            while true {
                let data = FileHandle.standardInput.availableData
                if data.isEmpty { break }
                do {
                    for line in try framer.feed(data) {
                        ClientExecutor.shared.post(try RunnerMessage(line: line))
                    }
                } catch {
                    Host.shared.fail("unreadable runner message: \(error)")
                }
            }
            ClientExecutor.shared.post(nil)
        }
        thread.start()
    }

    func fail(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("adapter: \(reason)\n".utf8))
        exit(3)
    }
}
