public import AdapterKit
public import ConformanceProtocol
import JSONCore
public import SessionKit

/// The reference client (SessionKit) as a hosted client: each command becomes a SessionKit call.
public final class SessionKitClient: HostedClient {
    public static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "SessionKit", version: "0.1.0", language: "Swift", platform: platform),
        capabilities: ["background-refresh", "offline-browsing"],
        // The declared offline policy: only the news feed may show from cache before validation.
        offlineResources: ["news"])

    private static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #else
        "other"
        #endif
    }

    /// The reference's configuration: SessionKit's defaults with the declared offline policy.
    public static var configuration: SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.offlinePolicy = OfflinePolicy(cachedResources: Set(identity.offlineResources))
        return configuration
    }

    private let client: SessionClient
    private let effects: ClientEffects
    /// The known-bad variant's defects (docs/known-bad.md): the one about what the app records lives here.
    private let defects: Set<SessionKitDefect>

    public convenience init(effects: ClientEffects) {
        self.init(effects: effects, configuration: Self.configuration)
    }

    /// `configuration` speaks the world profile the runner's `welcome` described, when it described one.
    public init(effects: ClientEffects, configuration: SessionConfiguration) {
        self.effects = effects
        defects = configuration.defects
        client = SessionClient(configuration: configuration.following(effects.world),
                               environment: SessionEnvironment(effects: effects))
    }

    public func perform(_ command: AppCommand) async -> CommandResult {
        do {
            switch command.kind {
            case .launch:
                // The launch into the initial state is not a transition of the machine; report it first.
                // DEFECT launch-not-recorded: it is not.
                if !defects.contains(.launchNotRecorded) {
                    effects.transition(TransitionEvent(transition: nil, from: nil, to: "restoring", account: nil,
                                                       generation: 1, reason: "launch"))
                }
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

/// SessionKit behind adapter protocol v1, for the runner in-process or as its own process.
public typealias ReferenceClientAdapter = HostedClientAdapter<SessionKitClient>

extension HostedClientAdapter where Client == SessionKitClient {
    public convenience init() {
        self.init(identity: SessionKitClient.identity)
    }
}
