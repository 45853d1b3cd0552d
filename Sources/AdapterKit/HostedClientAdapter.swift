import Foundation

public import ConformanceProtocol

/// Hosts a `HostedClient` behind adapter protocol v1. Every effect goes to the runner; every job runs on one
/// serial executor drained after each message, so the client is idle whenever `handle` returns: the host
/// answers a barrier at once, and the same messages in give the same messages out.
///
/// In loopback mode (`identity.http`), the client's HTTP goes through its own stack to the runner's server
/// (`ClientEffects.loopback`); a barrier is answered once the client has received every response the runner counted
/// (`httpAnswered`) and is otherwise idle, the host waiting meanwhile for the stack to resume the client's code.
public final class HostedClientAdapter<Client: HostedClient>: InProcessClient, @unchecked Sendable {
    private let executor: ClientExecutor
    private let bridge = EffectBridge()
    private let identity: HostedClientIdentity
    private let make: @Sendable (ClientEffects) -> Client
    private var client: Client?
    private var loopback: LoopbackHTTP?

    /// `executor`: the one the client runs on; give each adapter of a process the same one when the client's
    /// actors need a static executor (a `@globalActor`).
    public init(identity: HostedClientIdentity, executor: ClientExecutor = ClientExecutor(),
                make: @escaping @Sendable (ClientEffects) -> Client = { Client(effects: $0) }) {
        self.identity = identity
        self.executor = executor
        self.make = make
    }

    public func start() -> [AdapterMessage] {
        [.hello(protocolVersion: adapterProtocolVersion, implementation: identity.implementation,
                capabilities: identity.capabilities, offlineResources: identity.offlineResources,
                httpMode: identity.http, refreshTriggers: identity.refreshTriggers)]
    }

    public func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        switch message {
        case .welcome(let seed, let clock, let baseURL, let world):
            bridge.setClock(clock)
            if identity.http == .loopback {
                guard let baseURL, let url = URL(string: baseURL) else {
                    return [.log(level: "error", message: "adapter: loopback mode, but the welcome names no http.baseURL")]
                }
                loopback = loopback ?? LoopbackHTTP(baseURL: url, bridge: bridge)
            }
            client = make(ClientEffects(bridge: bridge, executor: executor, seed: seed, world: world, loopback: loopback))
        case .command(let command):
            start(command)
        case .reply(let id, let body):
            bridge.deliver(id, body)
        case .clock(let reading):
            bridge.setClock(reading)
        case .barrier, .error, .reset:
            break
        }
        if case .barrier(_, let answered) = message, let loopback {
            executor.drain { loopback.finished >= (answered ?? 0) }
        } else {
            executor.drain()
        }
        var out = bridge.takeOutbox()
        if case .barrier(let id, _) = message { out.append(.barrier(id: id, httpStarted: loopback?.started)) }
        return out
    }

    private func start(_ command: AppCommand) {
        guard let client else {
            bridge.emit(.result(CommandResult(id: command.id, error: ErrorInfo(
                code: "notLaunched", message: "no welcome received yet", definite: true))))
            return
        }
        let bridge = bridge
        Task(executorPreference: executor) {
            await CommandContext.$id.withValue(command.id) {
                bridge.emit(.result(await client.perform(command)))
            }
        }
    }
}

/// Runs a hosted client as an adapter process: protocol v1 on stdin/stdout, diagnostics on stderr.
/// Whatever arrives in one read is handled before the answers go out, in one write.
public enum AdapterProcessMain {
    public static func run(_ adapter: some InProcessClient) -> Never {
        run(make: { adapter }, declaresReset: false)
    }

    /// With `declaresReset`, the hello adds the `reset` capability and a `reset` replaces the client with a new
    /// one from `make`, whose hello answers it (docs/adapter-protocol.md: fast restarts).
    public static func run(make: () -> any InProcessClient, declaresReset: Bool) -> Never {
        do {
            try AdapterHost.serve(make: make, declaresReset: declaresReset, input: STDIN_FILENO, output: STDOUT_FILENO)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("adapter: \(error)\n".utf8))
            exit(3)
        }
    }
}

/// The host loop over two descriptors: read runner messages, handle each, write the answers of one read in one
/// write. Shared by the process host (stdin and stdout) and the socket host (one connection both ways).
enum AdapterHost {
    /// Returns when the input ends; throws on a line that is not a runner message (after writing what was answered).
    /// `socket`: `output` is a connection, written with `send` so that a runner that closed it gives an error, not
    /// SIGPIPE (Apple platforms set SO_NOSIGPIPE on the socket instead).
    static func serve(make: () -> any InProcessClient, declaresReset: Bool, input: Int32, output: Int32, socket: Bool = false) throws {
        var adapter = make()
        func hello(_ client: any InProcessClient) -> String {
            client.start().map { message in
                guard declaresReset, case .hello(let version, let implementation, let capabilities, let offline, let http, let triggers, _) = message
                else { return message.line + "\n" }
                return AdapterMessage.hello(protocolVersion: version, implementation: implementation, capabilities: capabilities + ["reset"],
                                            offlineResources: offline, httpMode: http, refreshTriggers: triggers).line + "\n"
            }.joined()
        }
        var framer = JSONLineFramer()
        var pending = hello(adapter)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard write(pending, to: output, socket: socket) else { return }
            pending = ""
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            do {
                for line in try framer.feed(buffer[0..<count]) {
                    let message = try RunnerMessage(line: line)
                    if declaresReset, case .reset = message {
                        adapter = make()
                        pending += hello(adapter)
                        continue
                    }
                    pending += adapter.handle(message).map { $0.line + "\n" }.joined()
                }
            } catch {
                _ = write(pending, to: output, socket: socket)
                throw error
            }
        }
    }

    /// Writes all of `text`; false when the other end is gone.
    private static func write(_ text: String, to descriptor: Int32, socket: Bool) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                #if os(Linux)
                if socket { return send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
                #endif
                return Foundation.write(descriptor, buffer.baseAddress, buffer.count)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}
