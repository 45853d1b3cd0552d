import ConformanceProtocol
import ConformanceRunner
import JSONCore

/// A first adapter, as a porting team writes it from docs/adapter-protocol.md in a few minutes: it answers the
/// handshake, `launch`, `signIn`, `signOut` and `request`, and never refreshes (a refused request just fails).
/// It also counts `sign-in-started` as a new generation, the slip the protocol doc's transcript invited.
/// Message mode, `json-v1`.
final class NeverRefreshingClient: InProcessClient {
    private var effects = 0
    private var pending: [String: (ReplyBody) -> [AdapterMessage]] = [:]
    private var state = "signedOut"
    private var generation = 0
    private var account: String?
    private var accessToken: String?

    /// Whether its `hello` declares `refreshTriggers` (`unauthorized`, `expiry`), as a team does that read the
    /// protocol doc: then every trigger variant runs, and stops where it needs a refresh.
    private let declaresTriggers: Bool

    init(declaresTriggers: Bool) { self.declaresTriggers = declaresTriggers }

    static let launcher = InProcessLauncher(description: "python3 adapter.py") { NeverRefreshingClient(declaresTriggers: true) }
    static let undeclaredLauncher = InProcessLauncher(description: "python3 adapter.py") {
        NeverRefreshingClient(declaresTriggers: false)
    }

    func start() -> [AdapterMessage] {
        [.hello(protocolVersion: adapterProtocolVersion,
                implementation: ImplementationInfo(name: "never-refreshes", version: "0.1.0", language: "Swift", platform: "test"),
                capabilities: [], refreshTriggers: declaresTriggers ? ["unauthorized", "expiry"] : nil)]
    }

    func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        switch message {
        case .barrier(let id, _): return [.barrier(id: id)]
        case .reply(let id, let body): return pending.removeValue(forKey: id)?(body) ?? []
        case .command(let command): return run(command)
        case .welcome, .error, .clock, .reset: return []
        }
    }

    private func run(_ command: AppCommand) -> [AdapterMessage] {
        switch command.kind {
        case .launch:
            generation = 0
            state = "restoring"
            return [move(nil, to: "restoring")] + effect { id in
                .storage(id: id, operation: .get, key: "session", value: nil, accessibility: nil)
            } then: { [self] reply in
                guard case .value(let stored?) = reply else {
                    return [move("restore-failed", to: "signedOut", increment: true), .result(CommandResult(id: command.id))]
                }
                let parts = stored.split(separator: " ").map(String.init)
                accessToken = parts.first
                account = parts.last
                return [move("restore-validated", to: "authenticated"), .result(CommandResult(id: command.id))]
            }
        case .signIn, .switchAccount:
            let body: JSONValue = .object(["email": .string(command.email ?? ""), "password": .string(command.password ?? "")])
            return [move("sign-in-started", to: "signingIn", increment: true)] + effect { id in
                .http(id: id, cause: command.id, HTTPRequestMessage(method: "POST", path: "/auth/login", body: body))
            } then: { [self] reply in
                guard case .response(let response) = reply, response.status == 200,
                      let access = response.body["access_token"]?.string, let refresh = response.body["refresh_token"]?.string,
                      let id = response.body["account_id"]?.string else {
                    return [move("sign-in-failed", to: "signedOut"),
                            .result(CommandResult(id: command.id, error: ErrorInfo(code: "invalidCredentials", definite: true)))]
                }
                accessToken = access
                account = id
                return effect { effectID in
                    .storage(id: effectID, operation: .set, key: "session", value: "\(access) \(refresh) \(id)",
                             accessibility: .afterFirstUnlock)
                } then: { [self] _ in
                    [move("sign-in-succeeded", to: "authenticated", increment: true), .result(CommandResult(id: command.id))]
                }
            }
        case .signOut:
            return effect { id in
                .storage(id: id, operation: .delete, key: "session", value: nil, accessibility: nil)
            } then: { [self] _ in
                accessToken = nil
                return [move("sign-out", to: "signedOut", increment: true), .result(CommandResult(id: command.id))]
            }
        case .request:
            let resource = command.resource ?? "inbox"
            guard let token = accessToken else {
                return [.result(CommandResult(id: command.id, error: ErrorInfo(code: "sessionEnded", definite: true)))]
            }
            return effect { id in
                .http(id: id, cause: command.id, HTTPRequestMessage(method: "GET", path: "/resources/\(resource)",
                                                                     headers: ["authorization": "Bearer \(token)"]))
            } then: { [self] reply in
                guard case .response(let response) = reply, response.status == 200 else {
                    return [.result(CommandResult(id: command.id, error: ErrorInfo(code: "requestFailed", definite: true)))]
                }
                return [.ui(UIEvent(kind: .content, resource: resource, account: account, generation: generation,
                                    contentID: response.body["contentId"]?.string)),
                        .result(CommandResult(id: command.id, content: response.body))]
            }
        default:
            return [.result(CommandResult(id: command.id))]
        }
    }

    private func effect(_ make: (String) -> AdapterMessage, then: @escaping (ReplyBody) -> [AdapterMessage]) -> [AdapterMessage] {
        effects += 1
        let id = "e\(effects)"
        pending[id] = then
        return [make(id)]
    }

    private func move(_ transition: String?, to: String, increment: Bool = false) -> AdapterMessage {
        let from = transition == nil ? nil : state
        if increment { generation += 1 }
        state = to
        return .transition(TransitionEvent(transition: transition, from: from, to: to, account: account,
                                           generation: generation, reason: nil))
    }
}
