import AdapterProcess
import ConformanceProtocol
import Foundation

/// The client as its own process: protocol v1 on its stdin and stdout, its stderr captured.
final class ProcessConnection: AdapterConnection {
    private let process: AdapterProcess
    private let timeout: Duration
    /// The CPU its process was started on, when the starting thread was pinned to one (`CPUPinning`): it is
    /// reused only by a thread pinned there.
    let cpu: Int? = CPUPinning.currentCPU()

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
        if case .command = message { commandsInStep += 1 }
        outgoing.append(message.line)
    }

    /// Commands sent since the current step began: the step's time limit grows with them (`StepTimeLimit`).
    private var commandsInStep = 0
    private var stepLimit: Duration { StepTimeLimit.limit(base: timeout, commands: commandsInStep) }

    private func flush() throws(AdapterFailure) {
        guard !outgoing.isEmpty else { return }
        defer { outgoing = [] }
        do {
            try process.send(lines: outgoing, timeout: stepLimit)
        } catch {
            throw failure(after: "could not write to the adapter (\(error))")
        }
    }

    func receive() throws(AdapterFailure) -> AdapterMessage {
        do {
            let message = try receiveChecked()
            if case .hello(_, _, let capabilities, _, _, _, let pid) = message { try noteHello(capabilities, pid: pid) }
            return message
        } catch {
            broken = true
            throw error
        }
    }

    /// What a hello declares about reuse. With `fork`, its `pid` must be a process the adapter forked (of its
    /// process group, not the adapter itself): a kill sends SIGKILL to that process alone.
    private func noteHello(_ capabilities: [String], pid: Int?) throws(AdapterFailure) {
        declaredReset = capabilities.contains("reset")
        forkedInstance = nil
        guard capabilities.contains("fork") else { return }
        guard let pid, let member = Int32(exactly: pid), process.isForkedInstance(member) else {
            _ = process.kill()
            let named = pid.map { "its pid \($0) is not" } ?? "it names no pid of"
            throw AdapterFailure(.protocolViolation, "the adapter's hello declares 'fork' but \(named) a process it forked "
                                 + "(another process of its process group)", stderrTail: tail)
        }
        forkedInstance = member
    }

    private func receiveChecked() throws(AdapterFailure) -> AdapterMessage {
        if let hello = pendingHello {
            pendingHello = nil
            return hello
        }
        try flush()
        var wait = ReceiveWait(timeout: stepLimit, stepStarted: stepStarted, history: history)
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
            throw AdapterFailure(.hung, "the adapter sent nothing for \(stepLimit) while the runner waited for it", stderrTail: tail)
        case .framingError(let error):
            _ = process.kill()
            throw AdapterFailure(.protocolViolation, "the adapter's output is not JSON lines: \(error)", stderrTail: tail)
        }
    }

    /// When the current step began; the step may take `stepLimit` in all, however much the adapter chatters.
    private var stepStarted = ContinuousClock.now
    /// What the process has sent, for the diagnosis of a wait that ends without a message.
    private var history = MessageHistory()

    func beginStep() {
        stepStarted = .now
        commandsInStep = 0
        history.beginStep()
    }

    /// Ends the client instance. One the adapter forked (`fork`) dies alone, by SIGKILL, and the adapter forks the
    /// next one into the pool; any other ends with its whole process.
    func kill() {
        if let pool, !broken, process.exitStatus == nil, killForkedInstance() {
            outgoing = []
            pool.put(self)
            return
        }
        endProcess()
    }

    /// SIGKILL to the forked instance alone; false when there is none, or it is not the adapter's to kill.
    private func killForkedInstance() -> Bool {
        guard let instance = forkedInstance, process.killForkedInstance(instance) else { return false }
        forkedInstance = nil
        killedInstance = instance
        awaitingFork = true
        return true
    }

    /// Ends the adapter's process and everything it started.
    func endProcess() {
        broken = true
        try? flush()
        _ = process.kill()
    }

    // MARK: Reuse across cases (the `reset` capability)

    /// Whether the adapter's hello declared `reset`.
    private var declaredReset = false
    /// With `fork`: the process the adapter forked for the current client instance.
    private var forkedInstance: Int32?
    /// The forked instance was killed; the adapter's next hello is a new instance's.
    private var awaitingFork = false
    /// The process of the last forked instance killed.
    private var killedInstance: Int32?
    /// Whether this process's next instance is a new process (a fork after a kill, or one a kill can make).
    var forks: Bool { awaitingFork || forkedInstance != nil }
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

    /// Readies the process for a new client instance: a fresh fork when `fresh` or when its last instance was
    /// killed, else a `reset`. False when the adapter did not answer so: the caller ends it and starts another.
    func restart(for pool: ConnectionPool, fresh: Bool) -> Bool {
        if awaitingFork || fresh {
            guard awaitingFork || killForkedInstance() else { return false }
            return awaitForkedHello(for: pool)
        }
        return reset(for: pool)
    }

    /// Waits for the hello of the instance the adapter forks after a kill. What the killed instance wrote and the
    /// runner had not read comes first, perhaps cut mid-line: every line before the hello is discarded unread. A
    /// hello that names the killed process again did not come from a new one: the adapter is replaced.
    private func awaitForkedHello(for pool: ConnectionPool) -> Bool {
        self.pool = pool
        stepStarted = .now
        commandsInStep = 0
        history.restart()
        logMark = process.stderrByteCount
        outgoing = []
        awaitingFork = false
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard case .line(let line) = process.receive(timeout: deadline - .now) else { return false }
            if let message = try? AdapterMessage(line: line), case .hello(_, _, _, _, _, _, let pid) = message {
                guard pid != killedInstance.map(Int.init) else { return false }
                pendingHello = message
                return true
            }
        }
        return false
    }

    /// Sends `reset` and waits for the adapter's new hello, discarding what the last case left unread.
    /// False when the adapter did not answer so: the caller kills it and starts a fresh process.
    func reset(for pool: ConnectionPool) -> Bool {
        self.pool = pool
        stepStarted = .now
        commandsInStep = 0
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

    /// Read to its end first: the stderr reader thread may not have run since the adapter's last answer (it may
    /// share the CPU with the caller). A quarter second is far more than it needs, and bounds the wait for an
    /// adapter that never stops writing.
    var capturedLog: String {
        process.syncStderr(timeout: .milliseconds(250))
        return process.stderr(since: logMark)
    }

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

    public var startsProcesses: Bool { true }

    public func launch() throws(AdapterFailure) -> any AdapterConnection {
        try launch(reusing: false)
    }

    public func launch(reusing: Bool) throws(AdapterFailure) -> any AdapterConnection {
        // A process that forks its instances gives a new process either way; one that resets, only for a case's start.
        if reuse {
            let cpu = CPUPinning.currentCPU()
            while let idle = pool.take(where: { (reusing || $0.forks) && $0.cpu == cpu }) {
                if idle.restart(for: pool, fresh: !reusing) { return idle }
                idle.endProcess()
            }
        }
        let connection = try ProcessConnection(commandLine: commandLine, timeout: timeout)
        if reuse { connection.adopt(into: pool) }
        return connection
    }

    public func stopIdle() {
        while let idle = pool.take(where: { _ in true }) { idle.endProcess() }
    }
}

/// The idle adapter processes of a launcher, waiting for their next case.
final class ConnectionPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [ProcessConnection] = []

    func put(_ connection: ProcessConnection) {
        lock.withLock { idle.append(connection) }
    }

    /// The most recently put process that `accepts`.
    func take(where accepts: (ProcessConnection) -> Bool) -> ProcessConnection? {
        lock.withLock {
            guard let index = idle.lastIndex(where: accepts) else { return nil }
            return idle.remove(at: index)
        }
    }
}
