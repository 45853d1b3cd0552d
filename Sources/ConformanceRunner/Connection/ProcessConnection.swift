import AdapterProcess
import ConformanceProtocol
import Foundation

/// The client as its own process: protocol v1 on its stdin and stdout, its stderr captured.
final class ProcessConnection: AdapterConnection {
    private let process: AdapterProcess
    private let timeout: Duration

    init(commandLine: String, timeout: Duration) throws(AdapterFailure) {
        do {
            process = try AdapterProcess(commandLine: commandLine)
        } catch {
            throw AdapterFailure(.crashed, "the adapter could not be started: \(error)")
        }
        self.timeout = timeout
    }

    /// Lines not yet written: the runner's messages go out in one write just before it waits for an answer.
    private var outgoing: [String] = []

    func send(_ message: RunnerMessage) throws(AdapterFailure) {
        outgoing.append(message.line)
    }

    private func flush() throws(AdapterFailure) {
        guard !outgoing.isEmpty else { return }
        defer { outgoing = [] }
        do {
            try process.send(lines: outgoing, timeout: timeout)
        } catch {
            throw failure(after: "could not write to the adapter (\(error))")
        }
    }

    func receive() throws(AdapterFailure) -> AdapterMessage {
        do {
            let message = try receiveChecked()
            if case .hello(_, _, let capabilities, _, _, _) = message { declaredReset = capabilities.contains("reset") }
            return message
        } catch {
            broken = true
            throw error
        }
    }

    private func receiveChecked() throws(AdapterFailure) -> AdapterMessage {
        if let hello = pendingHello {
            pendingHello = nil
            return hello
        }
        try flush()
        var wait = ReceiveWait(timeout: timeout, stepStarted: stepStarted, history: history)
        while true {
            let received = process.receive(timeout: wait.nextSlice())
            if case .timedOut = received {
                try wait.check(process, tail: { tail })
                continue
            }
            if case .line = received {
                try wait.checkFlood(process, tail: { tail })
                history.noteMessage(at: .now)
            }
            return try message(from: received)
        }
    }

    private func message(from received: AdapterProcess.Received) throws(AdapterFailure) -> AdapterMessage {
        switch received {
        case .line(let line):
            do {
                return try AdapterMessage(line: line)
            } catch {
                _ = process.kill()
                throw AdapterFailure(.protocolViolation, "the adapter sent a bad message: \(error.message): \(String(line.prefix(200)))",
                                     stderrTail: tail)
            }
        case .endOfStream(let status):
            throw AdapterFailure(.crashed, "the adapter ended (\(status)) while the runner waited for it", stderrTail: tail)
        case .timedOut:
            // Kill first: it waits for stderr to be read to its end, so the tail is complete.
            _ = process.kill()
            throw AdapterFailure(.hung, "the adapter sent nothing for \(timeout) while the runner waited for it", stderrTail: tail)
        case .framingError(let error):
            _ = process.kill()
            throw AdapterFailure(.protocolViolation, "the adapter's output is not JSON lines: \(error)", stderrTail: tail)
        }
    }

    /// When the current step began; the step may take `timeout` in all, however much the adapter chatters.
    private var stepStarted = ContinuousClock.now
    /// What the process has sent, for the diagnosis of a wait that ends without a message.
    private var history = MessageHistory()

    func beginStep() {
        stepStarted = .now
        history.beginStep()
    }

    func kill() {
        broken = true
        try? flush()
        _ = process.kill()
    }

    // MARK: Reuse across cases (the `reset` capability)

    /// Whether the adapter's hello declared `reset`.
    private var declaredReset = false
    /// Set once anything failed or the process was killed: it is never reused.
    private var broken = false
    /// The hello the adapter answered a `reset` with, handed to the next case as a fresh process's first message.
    private var pendingHello: AdapterMessage?
    /// Where this case's stderr starts, so a reused process's log is charged to the case that wrote it.
    private var logMark = 0
    private weak var pool: ConnectionPool?

    func release() {
        guard declaredReset, !broken, process.exitStatus == nil, let pool else { return kill() }
        // What was not sent belongs to the instance that ended; the next one starts from the reset.
        outgoing = []
        pool.put(self)
    }

    /// Sends `reset` and waits for the adapter's new hello, discarding what the last case left unread.
    /// False when the adapter did not answer so: the caller kills it and starts a fresh process.
    func reset(for pool: ConnectionPool) -> Bool {
        self.pool = pool
        stepStarted = .now
        history.restart()
        logMark = process.stderrByteCount
        do {
            try send(.reset)
            while true {
                let message = try receiveChecked()
                if case .hello = message {
                    pendingHello = message
                    return true
                }
            }
        } catch {
            return false
        }
    }

    func adopt(into pool: ConnectionPool) { self.pool = pool }

    var capturedLog: String { process.stderr(since: logMark) }

    private var tail: String { process.stderrTail(maxLines: 40) }

    private func failure(after what: String) -> AdapterFailure {
        if case .endOfStream(let status) = process.receive(timeout: .milliseconds(200)) {
            return AdapterFailure(.crashed, "\(what); it ended (\(status))", stderrTail: tail)
        }
        if let status = process.exitStatus {
            // Exited, while a process it started still holds its output open.
            return AdapterFailure(.crashed, "\(what); it exited (\(status))", stderrTail: tail)
        }
        return AdapterFailure(.crashed, what, stderrTail: tail)
    }
}

/// Starts the adapter's command line as a new process for each client instance; or, when the adapter
/// declared `reset` and `reuse` is on, keeps a process that ended a case healthy and resets it for the next
/// one. A relaunch after a kill always gets a new process.
public struct ProcessAdapterLauncher: AdapterLauncher {
    public let commandLine: String
    public let timeout: Duration
    /// The loopback HTTP port to serve at (`--loopback-port`); nil picks a free port once per case.
    public let loopbackPort: UInt16?
    /// Whether a process that declared `reset` is kept for the next case (`--no-reset` turns it off).
    public let reuse: Bool
    private let pool = ConnectionPool()

    public init(commandLine: String, timeout: Duration, loopbackPort: UInt16? = nil, reuse: Bool = true) {
        self.commandLine = commandLine
        self.timeout = timeout
        self.loopbackPort = loopbackPort
        self.reuse = reuse
    }

    public var description: String { commandLine }

    public var reusesProcesses: Bool { reuse }

    public func launch() throws(AdapterFailure) -> any AdapterConnection {
        try launch(reusing: false)
    }

    public func launch(reusing: Bool) throws(AdapterFailure) -> any AdapterConnection {
        if reusing, reuse {
            while let idle = pool.take() {
                if idle.reset(for: pool) { return idle }
                idle.kill()
            }
        }
        let connection = try ProcessConnection(commandLine: commandLine, timeout: timeout)
        if reuse { connection.adopt(into: pool) }
        return connection
    }

    public func stopIdle() {
        while let idle = pool.take() { idle.kill() }
    }
}

/// The idle adapter processes of a launcher, waiting for their next case.
final class ConnectionPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [ProcessConnection] = []

    func put(_ connection: ProcessConnection) {
        lock.withLock { idle.append(connection) }
    }

    func take() -> ProcessConnection? {
        lock.withLock { idle.popLast() }
    }
}
