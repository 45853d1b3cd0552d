import AdapterKit
import AdapterKitURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP
import Testing

/// A client that fetches one resource through URLSession in loopback mode, with the deadline `DEADLINE` gives.
final class URLSessionClient: HostedClient {
    let effects: ClientEffects
    let session = URLSession(configuration: .conformanceLoopback())
    static let deadline = Locked<Double?>(nil)

    init(effects: ClientEffects) {
        self.effects = effects
    }

    func perform(_ command: AppCommand) async -> CommandResult {
        guard let baseURL = effects.loopback?.baseURL else { return CommandResult(id: command.id, error: ErrorInfo(code: "noBaseURL", definite: true)) }
        let request = URLRequest(url: baseURL.appendingPathComponent("resources/\(command.resource ?? "news")"))
        do {
            let (data, response) = try await effects.data(for: request, from: session, deadline: Self.deadline.value)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return CommandResult(id: command.id, content: ["status": .int(status), "body": .string(String(decoding: data, as: UTF8.self))])
        } catch let error as URLError where error.code == .timedOut {
            return CommandResult(id: command.id, error: ErrorInfo(code: "timeout", definite: false))
        } catch {
            return CommandResult(id: command.id, error: ErrorInfo(code: "transport", definite: false))
        }
    }
}

/// A lock-guarded value for the tests' static configuration.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Serialized: the client's deadline is one static setting.
@Suite("AdapterKit in loopback mode", .serialized)
struct LoopbackModeTests {
    static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "urlsession-client", version: "0", language: "Swift", platform: "test"),
        capabilities: [], http: .loopback)

    /// A host past its welcome, pointed at `server`, with command c1 (`request news`) sent: what it answered.
    static func requested(_ server: LoopbackHTTPServer, deadline: Double?) -> (HostedClientAdapter<URLSessionClient>, [AdapterMessage]) {
        URLSessionClient.deadline.value = deadline
        let host = HostedClientAdapter<URLSessionClient>(identity: identity)
        _ = host.start()
        _ = host.handle(.welcome(seed: 1, clock: ClockReading(wall: 0, monotonic: 0), httpBaseURL: server.baseURL))
        return (host, host.handle(.command(AppCommand(id: "c1", kind: .request, resource: "news"))))
    }

    /// The one request the server received, once it arrived.
    static func received(_ server: LoopbackHTTPServer) throws -> LoopbackHTTPRequest {
        #expect(server.waitForReceived(atLeast: 1, timeout: .seconds(30)) == 1)
        return try #require(server.takeRequests().first)
    }

    static let ok = LoopbackHTTPResponse(status: 200, headers: [HTTPHeaderField("Content-Type", "text/plain")], body: Array("fresh".utf8))

    @Test("the hello asks for loopback mode")
    func helloAsksForLoopback() {
        guard case .hello(_, _, _, _, let http, _, _)? = HostedClientAdapter<URLSessionClient>(identity: Self.identity).start().first else {
            Issue.record("no hello")
            return
        }
        #expect(http == .loopback)
    }

    @Test("a request carries its command as cause and a tag; the barrier waits for its response to reach the client and counts it started")
    func barrierWaitsForTheResponse() throws {
        let server = try LoopbackHTTPServer()
        let (host, sent) = Self.requested(server, deadline: nil)
        #expect(sent.isEmpty)
        let request = try Self.received(server)
        #expect(request.target == "/resources/news")
        #expect(request.header("X-Conformance-Cause") == "c1")
        #expect(request.header("X-Conformance-Request") == "r1")
        server.respond(to: request.exchange, with: Self.ok)
        let out = host.handle(.barrier(id: "b1", httpAnswered: 1))
        #expect(out == [.result(CommandResult(id: "c1", content: ["status": 200, "body": "fresh"])), .barrier(id: "b1", httpStarted: 1)])
    }

    @Test("a barrier that counts no answer is answered at once, the request counted started but not finished")
    func barrierBeforeTheAnswer() throws {
        let server = try LoopbackHTTPServer()
        let (host, _) = Self.requested(server, deadline: nil)
        let request = try Self.received(server)
        #expect(host.handle(.barrier(id: "b1", httpAnswered: 0)) == [.barrier(id: "b1", httpStarted: 1)])
        server.respond(to: request.exchange, with: Self.ok)
        #expect(host.handle(.barrier(id: "b2", httpAnswered: 1)).count == 2)
    }

    @Test("with a deadline the request races a sleep; the sleep first: the request's tag is abandoned as timed out, never counted finished")
    func deadlineAbandonsTheRequest() throws {
        let server = try LoopbackHTTPServer()
        let (host, sent) = Self.requested(server, deadline: 5)
        #expect(sent == [.sleep(id: "e1", seconds: 5)])
        let request = try Self.received(server)
        let out = host.handle(.reply(id: "e1", .done))
        #expect(out == [.abandon(id: "r1", reason: "timeout"), .result(CommandResult(id: "c1", error: ErrorInfo(code: "timeout", definite: false)))])
        // The runner never answers an abandoned request: its connection is reset; the host does not wait for it.
        server.reset(request.exchange)
        #expect(host.handle(.barrier(id: "b1", httpAnswered: 0)) == [.barrier(id: "b1", httpStarted: 1)])
    }

    @Test("with a deadline, the response first: the sleep is abandoned as answered and the response is the outcome")
    func responseAbandonsTheSleep() throws {
        let server = try LoopbackHTTPServer()
        let (host, _) = Self.requested(server, deadline: 5)
        let request = try Self.received(server)
        server.respond(to: request.exchange, with: Self.ok)
        let out = host.handle(.barrier(id: "b1", httpAnswered: 1))
        #expect(out == [.abandon(id: "e1", reason: "answered"), .result(CommandResult(id: "c1", content: ["status": 200, "body": "fresh"])),
                        .barrier(id: "b1", httpStarted: 1)])
        // The sleep's reply, had it crossed the abandon, reaches nobody.
        #expect(host.handle(.reply(id: "e1", .done)).isEmpty)
    }
}
