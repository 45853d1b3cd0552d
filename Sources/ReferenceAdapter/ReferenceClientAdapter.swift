import ConformanceProtocol
import JSONCore
import SessionKit

/// The command a piece of client work serves, so HTTP effects can name their cause.
enum CommandContext {
    @TaskLocal static var id: String?
}

/// SessionKit wrapped in adapter protocol v1. Every effect goes to the runner; every job runs on one
/// serial executor drained after each message, so the adapter is idle whenever `handle` returns.
public final class ReferenceClientAdapter: InProcessClient, @unchecked Sendable {
    public static let implementation = ImplementationInfo(
        name: "SessionKit", version: "0.1.0", language: "Swift", platform: ReferenceClientAdapter.platform)
    public static let capabilities = ["background-refresh", "offline-browsing"]
    /// The reference's declared offline policy: only the news feed may show from cache before validation.
    public static let offlineResources = ["news"]

    private static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #else
        "other"
        #endif
    }

    private let executor = SerialJobExecutor()
    private let bridge = EffectBridge()
    private var client: SessionClient?
    private let configuration: SessionConfiguration

    public init(configuration: SessionConfiguration? = nil) {
        var defaults = SessionConfiguration()
        defaults.offlinePolicy = OfflinePolicy(cachedResources: Set(Self.offlineResources))
        self.configuration = configuration ?? defaults
    }

    public func start() -> [AdapterMessage] {
        [.hello(protocolVersion: adapterProtocolVersion, implementation: Self.implementation,
                capabilities: Self.capabilities, offlineResources: Self.offlineResources)]
    }

    public func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        switch message {
        case .welcome(let seed, let clock):
            bridge.setClock(clock)
            let bridge = bridge
            let environment = SessionEnvironment(
                transport: BridgedTransport(bridge: bridge, cause: { CommandContext.id }),
                secureStorage: BridgedSecureStorage(bridge: bridge), preferences: BridgedPreferences(bridge: bridge),
                clock: BridgedClock(bridge: bridge), random: BridgedRandom(seed: seed), log: BridgedLog(bridge: bridge),
                ui: BridgedUI(bridge: bridge), events: BridgedEvents(bridge: bridge), taskExecutor: executor)
            client = SessionClient(configuration: configuration, environment: environment)
        case .command(let command):
            perform(command)
        case .reply(let id, let body):
            bridge.deliver(id, body)
        case .clock(let reading):
            bridge.setClock(reading)
        case .barrier, .error:
            break
        }
        executor.drain()
        var out = bridge.takeOutbox()
        if case .barrier(let id) = message { out.append(.barrier(id: id)) }
        return out
    }

    private func perform(_ command: AppCommand) {
        guard let client else {
            bridge.emit(.result(CommandResult(id: command.id, error: ErrorInfo(
                code: "notLaunched", message: "no welcome received yet", definite: true))))
            return
        }
        if command.kind == .launch {
            // The launch into the initial state is not a transition of the machine; report it first.
            bridge.emit(.transition(TransitionEvent(transition: nil, from: nil, to: "restoring", account: nil,
                                                    generation: 1, reason: "launch")))
        }
        let bridge = bridge
        Task(executorPreference: executor) {
            await CommandContext.$id.withValue(command.id) {
                let result = await Self.run(command, on: client)
                bridge.emit(.result(result))
            }
        }
    }

    private static func run(_ command: AppCommand, on client: SessionClient) async -> CommandResult {
        do {
            switch command.kind {
            case .launch:
                let snapshot = await client.launch()
                return CommandResult(id: command.id, content: ["state": .string(snapshot.phase.rawValue)])
            case .signIn, .switchAccount:
                let email = command.email ?? ""
                let password = command.password ?? ""
                let profile = command.kind == .signIn
                    ? try await client.signIn(email: email, password: password)
                    : try await client.switchAccount(email: email, password: password)
                return CommandResult(id: command.id, content: ["account": .string(profile.accountID.rawValue)])
            case .request:
                let content = try await client.fetch(command.resource ?? "")
                let body = try? JSONParser.parse(String(decoding: content.body, as: UTF8.self))
                return CommandResult(id: command.id, content: [
                    "resource": .string(content.resource), "account": .string(content.account.rawValue),
                    "contentId": body?["contentId"] ?? .null,
                ])
            case .signOut:
                await client.signOut()
            case .foreground:
                await client.appWillEnterForeground()
            case .backgroundRefresh:
                let outcome = await client.performBackgroundRefresh()
                return CommandResult(id: command.id, content: ["outcome": .string(String(describing: outcome))])
            case .unlock:
                await client.deviceDidUnlock()
            case .online:
                await client.networkDidBecomeAvailable()
            case .background, .lock, .offline:
                break
            }
            return CommandResult(id: command.id)
        } catch {
            return CommandResult(id: command.id, error: ErrorInfo(
                code: error.code.rawValue, message: error.description,
                definite: error.failureClass.map { ![.timeout, .connectionLost].contains($0) } ?? true))
        }
    }
}
