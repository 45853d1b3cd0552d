// Only AdapterKit is imported: its one import brings the protocol's types its API exposes.
import AdapterKit
import Testing

/// A client that fetches one resource with a request deadline, as a real stack's timeout.
final class DeadlineClient: HostedClient {
    let effects: ClientEffects

    init(effects: ClientEffects) {
        self.effects = effects
    }

    func perform(_ command: AppCommand) async -> CommandResult {
        let request = HTTPRequestMessage(method: "GET", path: "/resources/\(command.resource ?? "news")")
        switch await effects.http(request, deadline: 5) {
        case .response(let response): return CommandResult(id: command.id, content: ["status": .int(response.status)])
        case .failure(let info): return CommandResult(id: command.id, error: info)
        case .cancelled: return CommandResult(id: command.id, error: ErrorInfo(code: "cancelled", definite: true))
        }
    }
}

@Suite("AdapterKit")
struct AdapterKitTests {
    static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "deadline-client", version: "0", language: "Swift", platform: "test"),
        capabilities: [], refreshTriggers: ["unauthorized", "expiry"])

    /// A host past its welcome, with `request` sent: what it answered.
    static func requested() -> (HostedClientAdapter<DeadlineClient>, [AdapterMessage]) {
        let host = HostedClientAdapter<DeadlineClient>(identity: identity)
        _ = host.start()
        _ = host.handle(.welcome(seed: 1, clock: ClockReading(wall: 0, monotonic: 0)))
        return (host, host.handle(.command(AppCommand(id: "c1", kind: .request, resource: "news"))))
    }

    @Test("the hello declares the identity's refresh triggers")
    func helloDeclaresTriggers() {
        let host = HostedClientAdapter<DeadlineClient>(identity: Self.identity)
        guard case .hello(_, _, _, _, _, let triggers, _)? = host.start().first else {
            Issue.record("no hello")
            return
        }
        #expect(triggers == ["unauthorized", "expiry"])
    }

    @Test("a request with a deadline races a sleep of that length: both go out, the request with its command as cause")
    func deadlineSendsRequestAndSleep() {
        let (_, out) = Self.requested()
        #expect(out == [.http(id: "e1", cause: "c1", HTTPRequestMessage(method: "GET", path: "/resources/news")),
                        .sleep(id: "e2", seconds: 5)])
    }

    @Test("when the sleep ends first the request is abandoned as timed out, and the command fails indefinitely")
    func deadlineAbandonsTheRequest() {
        let (host, _) = Self.requested()
        let out = host.handle(.reply(id: "e2", .done))
        #expect(out == [.abandon(id: "e1", reason: "timeout"),
                        .result(CommandResult(id: "c1", error: ErrorInfo(code: "timeout", message: "no response within 5.0 s", definite: false)))])
        // A late reply to the abandoned request reaches nobody.
        #expect(host.handle(.reply(id: "e1", .response(HTTPResponseMessage(status: 200)))).isEmpty)
    }

    @Test("when the response comes first the sleep is abandoned and the response is the outcome")
    func answeredRequestAbandonsTheSleep() {
        let (host, _) = Self.requested()
        let out = host.handle(.reply(id: "e1", .response(HTTPResponseMessage(status: 200))))
        #expect(out == [.abandon(id: "e2", reason: "answered"), .result(CommandResult(id: "c1", content: ["status": 200]))])
    }
}
