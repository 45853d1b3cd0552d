import AdapterProcess
import ConformanceProtocol

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
        try flush()
        var wait = ReceiveWait(timeout: timeout, stepStarted: stepStarted)
        while true {
            let received = process.receive(timeout: wait.nextSlice())
            if case .timedOut = received {
                try wait.check(process, tail: { tail })
                continue
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

    func beginStep() {
        stepStarted = .now
    }

    func kill() {
        try? flush()
        _ = process.kill()
    }

    var capturedLog: String { process.stderrAll }

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

/// Starts the adapter's command line as a new process for each client instance.
public struct ProcessAdapterLauncher: AdapterLauncher {
    public let commandLine: String
    public let timeout: Duration
    /// The loopback HTTP port to serve at (`--loopback-port`); nil picks a free port once per case.
    public let loopbackPort: UInt16?

    public init(commandLine: String, timeout: Duration, loopbackPort: UInt16? = nil) {
        self.commandLine = commandLine
        self.timeout = timeout
        self.loopbackPort = loopbackPort
    }

    public var description: String { commandLine }

    public func launch() throws(AdapterFailure) -> any AdapterConnection {
        try ProcessConnection(commandLine: commandLine, timeout: timeout)
    }
}
