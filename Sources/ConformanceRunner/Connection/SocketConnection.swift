import AdapterProcess
import ConformanceProtocol
import Foundation
import POSIXSync

/// Clients that run elsewhere (an app on a simulator, an emulator, a device, a JavaScript runtime) and connect to
/// the runner over TCP: protocol v1, the same JSON lines as on an adapter's stdin and stdout. The team's commands
/// start and end the client: `launch` (`xcrun simctl launch ...`, `adb shell am start ...`) before each instance,
/// which then connects to `host:port`; `kill` (`xcrun simctl terminate ...`, `adb shell am force-stop ...`) for
/// every kill, a real process death on the device. Without a kill command, a kill ends the launch command's
/// process group: for a client the launch command runs itself (a local stand-in for the device).
public struct SocketAdapterLauncher: AdapterLauncher {
    public let host: String
    public let port: UInt16
    public let launchCommand: String
    public let killCommand: String?
    public let timeout: Duration
    /// The port of the runner's loopback HTTP server, pinned (`--loopback-port`) so that a device can be told it ahead
    /// (`adb reverse`); nil: a free one per case.
    public let loopbackPort: UInt16?
    private let listener = ListenerBox()

    public init(host: String, port: UInt16, launchCommand: String, killCommand: String?, timeout: Duration, loopbackPort: UInt16? = nil) {
        self.host = host
        self.port = port
        self.launchCommand = launchCommand
        self.killCommand = killCommand
        self.timeout = timeout
        self.loopbackPort = loopbackPort
    }

    public var description: String {
        "socket \(host):\(port), launched by \(launchCommand)" + (killCommand.map { ", killed by \($0)" } ?? "")
    }

    /// A command with `{port}` replaced by the port the runner listens on (the one bound, for port 0).
    static func filled(_ command: String, port: UInt16) -> String {
        command.replacingOccurrences(of: "{port}", with: String(port))
    }

    /// `HOST:PORT` as `--listen` takes it; nil when it is not one.
    public static func address(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let host = String(text[..<colon])
        return host.isEmpty ? nil : (host, port)
    }

    public func launch() throws(AdapterFailure) -> any AdapterConnection {
        let listening: AdapterListener
        do {
            listening = try listener.open(host: host, port: port)
        } catch {
            throw AdapterFailure(.crashed, "the runner could not listen for the client: \(error)")
        }
        let launched: AdapterProcess
        do {
            launched = try AdapterProcess(commandLine: Self.filled(launchCommand, port: listening.port))
        } catch {
            throw AdapterFailure(.crashed, "the launch command could not be started: \(error)")
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let socket: AdapterSocket?
            do {
                socket = try listening.accept(timeout: min(.milliseconds(250), max(.zero, deadline - .now)))
            } catch {
                _ = launched.kill()
                throw AdapterFailure(.crashed, "the runner could not accept the client: \(error)", stderrTail: launched.stderrTail(maxLines: 40))
            }
            if let socket {
                return SocketConnection(socket: socket, launched: launched, killCommand: killCommand.map { Self.filled($0, port: listening.port) },
                                        timeout: timeout)
            }
            if RunInterruption.requested != nil || ContinuousClock.now >= deadline {
                _ = launched.kill()
                let status = launched.exitStatus.map { "; the launch command ended (\($0))" } ?? ""
                throw AdapterFailure(.hung, "no client connected to \(host):\(listening.port) within \(timeout) of the launch command\(status)",
                                     stderrTail: launched.stderrTail(maxLines: 40))
            }
        }
    }
}

/// The listening socket, opened at the first launch and kept for the run: every instance connects to the same
/// address (what a device's app was configured with).
final class ListenerBox: Sendable {
    private let listener = Locked<AdapterListener?>(nil)

    func open(host: String, port: UInt16) throws(AdapterSocketError) -> AdapterListener {
        try listener.withLock { (current: inout AdapterListener?) throws(AdapterSocketError) -> AdapterListener in
            if let current { return current }
            let opened = try AdapterListener(host: host, port: port)
            current = opened
            return opened
        }
    }
}

/// One client instance connected over TCP.
final class SocketConnection: AdapterConnection {
    private let socket: AdapterSocket
    /// What the launch command started: its output is the instance's log, and without a kill command a kill ends it.
    private let launched: AdapterProcess
    private let killCommand: String?
    private let timeout: Duration
    private var outgoing: [String] = []
    private var commandsInStep = 0
    private var stepStarted = ContinuousClock.now
    private var received = 0
    private var receivedInStep = 0
    private var ended = false

    init(socket: AdapterSocket, launched: AdapterProcess, killCommand: String?, timeout: Duration) {
        self.socket = socket
        self.launched = launched
        self.killCommand = killCommand
        self.timeout = timeout
    }

    private var stepLimit: Duration { StepTimeLimit.limit(base: timeout, commands: commandsInStep) }
    private var tail: String { launched.stderrTail(maxLines: 40) }

    func send(_ message: RunnerMessage) throws(AdapterFailure) {
        if case .command = message { commandsInStep += 1 }
        outgoing.append(message.line)
    }

    func receive() throws(AdapterFailure) -> AdapterMessage {
        if !outgoing.isEmpty {
            defer { outgoing = [] }
            do {
                try socket.send(lines: outgoing, timeout: stepLimit)
            } catch {
                kill()
                throw AdapterFailure(.crashed, "could not write to the client (\(error))", stderrTail: tail)
            }
        }
        while true {
            let deadline = stepStarted + stepLimit
            let slice = min(.milliseconds(250), max(.zero, deadline - .now))
            switch socket.receive(timeout: slice) {
            case .line(let line):
                received += 1
                receivedInStep += 1
                do {
                    return try AdapterMessage(line: line)
                } catch {
                    kill()
                    throw AdapterFailure(.protocolViolation, "the client sent a bad message: \(error.message): \(String(line.prefix(200)))",
                                         stderrTail: tail)
                }
            case .closed:
                kill()
                throw AdapterFailure(.crashed, "the client closed the connection while the runner waited for it", stderrTail: tail)
            case .framingError(let error):
                kill()
                throw AdapterFailure(.protocolViolation, "the client's output is not JSON lines: \(error)", stderrTail: tail)
            case .timedOut:
                if RunInterruption.requested != nil {
                    kill()
                    throw AdapterFailure(.interrupted, "the run was interrupted", stderrTail: tail)
                }
                guard ContinuousClock.now >= deadline else { continue }
                kill()
                let what = received == 0 ? "the client sent no message within \(stepLimit) of connecting (no hello)"
                    : receivedInStep == 0 ? "the client sent nothing for \(stepLimit) while the runner waited for it"
                    : "the step took longer than \(stepLimit): the client kept sending messages without settling (\(receivedInStep) in this step)"
                throw AdapterFailure(.hung, what, stderrTail: tail)
            }
        }
    }

    func beginStep() {
        stepStarted = .now
        commandsInStep = 0
        receivedInStep = 0
    }

    /// Ends the instance: the kill command when there is one (waited for, up to the timeout), then the launch
    /// command's process group, then the connection.
    func kill() {
        guard !ended else { return }
        ended = true
        if let killCommand {
            if let killer = try? AdapterProcess(commandLine: killCommand) {
                _ = killer.terminate(grace: timeout)
            }
        }
        _ = launched.kill()
        socket.close()
    }

    var capturedLog: String {
        launched.syncStderr(timeout: .milliseconds(250))
        return launched.stderrAll
    }
}
