import ConformanceProtocol
import ConformanceRunner

/// Runs the fake client as if it were an adapter process: every message crosses as a JSON line and is parsed
/// back with `AdapterMessage(line:)`, so a test can corrupt the wire; `log` messages go to a simulated stderr
/// instead of stdout when asked.
final class LineConnection: AdapterConnection {
    private var client: FakeSessionClient?
    private var lines: [String] = []
    private let rewrite: @Sendable (String) -> String
    private let logsToStderr: Bool
    private var stderr = ""

    init(_ client: FakeSessionClient, logsToStderr: Bool, rewrite: @escaping @Sendable (String) -> String) {
        self.client = client
        self.rewrite = rewrite
        self.logsToStderr = logsToStderr
        take(client.start())
    }

    private func take(_ messages: [AdapterMessage]) {
        for message in messages {
            if logsToStderr, case .log(let level, let text) = message {
                stderr += "[\(level)] \(text)\n"
            } else {
                lines.append(rewrite(message.line))
            }
        }
    }

    func send(_ message: RunnerMessage) throws(AdapterFailure) {
        guard let client else { throw AdapterFailure(.notRunning, "the client was killed") }
        take(client.handle(RunnerMessage(roundTripping: message)))
    }

    func receive() throws(AdapterFailure) -> AdapterMessage {
        guard !lines.isEmpty else {
            throw AdapterFailure(.hung, "the line client sent nothing more while the runner waited")
        }
        let line = lines.removeFirst()
        do {
            return try AdapterMessage(line: line)
        } catch {
            throw AdapterFailure(.protocolViolation, "the adapter sent a bad message: \(error.message): \(line.prefix(200))")
        }
    }

    func kill() {
        client = nil
        lines = []
    }

    var capturedLog: String { stderr }
}

extension RunnerMessage {
    /// The message as the adapter would read it from its stdin line.
    init(roundTripping message: RunnerMessage) {
        self = (try? RunnerMessage(line: message.line)) ?? message
    }
}

struct LineLauncher: AdapterLauncher {
    let configuration: FakeSessionClient.Configuration
    var logsToStderr = false
    var rewrite: @Sendable (String) -> String = { $0 }

    var description: String { "fake session client over JSON lines" }

    func launch() throws(AdapterFailure) -> any AdapterConnection {
        LineConnection(FakeSessionClient(configuration), logsToStderr: logsToStderr, rewrite: rewrite)
    }
}
