import AdapterKit
import Foundation
import Testing

/// `launch` waits on a backoff sleep that `online` cuts short; `request` sends a request it can give up on.
/// @unchecked: its state is touched only on the host's one executor.
final class BackoffClient: HostedClient, @unchecked Sendable {
    let effects: ClientEffects
    var backoff: PendingEffect?

    init(effects: ClientEffects) {
        self.effects = effects
    }

    func perform(_ command: AppCommand) async -> CommandResult {
        switch command.kind {
        case .launch:
            let sleep = effects.startSleep(seconds: 30)
            backoff = sleep
            return CommandResult(id: command.id, content: ["woken": .bool(await sleep.reply != nil)])
        case .online:
            backoff?.abandon(reason: "online")
            return CommandResult(id: command.id)
        case .request:
            let request = effects.startHTTP(HTTPRequestMessage(method: "GET", path: "/resources/news"))
            guard case .response(let response)? = await request.reply else {
                return CommandResult(id: command.id, error: ErrorInfo(code: "gaveUp", definite: false))
            }
            return CommandResult(id: command.id, content: ["status": .int(response.status)])
        default:
            return CommandResult(id: command.id)
        }
    }
}

@Suite("AdapterKit: effects the client may give up on")
struct PendingEffectTests {
    static func host() -> HostedClientAdapter<BackoffClient> {
        let host = HostedClientAdapter<BackoffClient>(identity: HostedClientIdentity(
            implementation: ImplementationInfo(name: "backoff-client", version: "0", language: "Swift", platform: "test"), capabilities: []))
        _ = host.start()
        _ = host.handle(.welcome(seed: 1, clock: ClockReading(wall: 0, monotonic: 0)))
        return host
    }

    @Test("a sleep abandoned before its reply sends abandon with the reason and ends the wait with nil; its late reply reaches nobody")
    func abandonedSleep() {
        let host = Self.host()
        #expect(host.handle(.command(AppCommand(id: "c1", kind: .launch))) == [.sleep(id: "e1", seconds: 30)])
        #expect(host.handle(.command(AppCommand(id: "c2", kind: .online))) == [
            .abandon(id: "e1", reason: "online"), .result(CommandResult(id: "c2")), .result(CommandResult(id: "c1", content: ["woken": false])),
        ])
        #expect(host.handle(.reply(id: "e1", .done)).isEmpty)
    }

    @Test("a sleep answered first wakes its waiter, and a later abandon sends nothing")
    func answeredSleep() {
        let host = Self.host()
        _ = host.handle(.command(AppCommand(id: "c1", kind: .launch)))
        #expect(host.handle(.reply(id: "e1", .done)) == [.result(CommandResult(id: "c1", content: ["woken": true]))])
        #expect(host.handle(.command(AppCommand(id: "c2", kind: .online))) == [.result(CommandResult(id: "c2"))])
    }

    @Test("a request started with startHTTP names its command as cause and resumes with the runner's reply")
    func startedRequest() {
        let host = Self.host()
        #expect(host.handle(.command(AppCommand(id: "c1", kind: .request))) == [
            .http(id: "e1", cause: "c1", HTTPRequestMessage(method: "GET", path: "/resources/news")),
        ])
        #expect(host.handle(.reply(id: "e1", .response(HTTPResponseMessage(status: 200)))) == [
            .result(CommandResult(id: "c1", content: ["status": 200])),
        ])
    }
}
