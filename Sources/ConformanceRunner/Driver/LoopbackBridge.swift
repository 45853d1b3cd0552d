import ConformanceProtocol
import JSONCore
import LoopbackHTTP

/// The world's HTTP endpoints on 127.0.0.1, for one client process that asked for loopback HTTP.
///
/// It decides nothing. Each request that arrives on the socket becomes the same `http` message an adapter
/// would have sent as an effect (the `X-Conformance-Cause` header becomes its `cause`), so the trace, the
/// oracles and the expectations cannot tell the modes apart; the driver answers it like any effect, with
/// `World.serve` and the same hold and fault logic, and the answer goes back on the socket: a response, or
/// a reset connection for a failure (timeout, offline, connectionLost).
///
/// Determinism: the adapter reports in each barrier answer how many requests its client has started
/// (`httpStarted`); ``collect(started:)`` waits, bounded by the timeout, until the server has received that
/// many, so a request on the socket can never be overtaken by the barrier answer on stdout. Requests of one
/// batch get their ids in canonical order, as effects are answered. The other way round the runner says in
/// each barrier how many responses it has sent (`httpAnswered`), and the adapter answers only once its
/// client has received them all.
final class LoopbackBridge {
    /// The request header that names the command a request serves.
    static let causeHeader = "x-conformance-cause"
    /// The request header by which an adapter names a request it may abandon (`abandon` with that id).
    static let tagHeader = "x-conformance-request"
    /// Ids of loopback exchanges in the trace; adapters must not use the prefix for their own effects.
    static let idPrefix = "loopback-"
    /// Headers about the connection or the framing, not the request: left out of the trace.
    private static let transportHeaders: Set<String> = [
        "host", "connection", "keep-alive", "content-length", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-connection", causeHeader, tagHeader,
    ]

    private let server: LoopbackHTTPServer
    private let timeout: Duration
    /// Trace ids of the requests not answered yet, to the server's exchange numbers.
    private var exchanges: [String: Int] = [:]
    /// The `X-Conformance-Request` tag of each request that had one, to its trace id.
    private var tags: [String: String] = [:]
    private var counter = 0

    /// Serves at `port`, or at an ephemeral port when it is 0.
    init(timeout: Duration, port: UInt16 = 0) throws(AdapterFailure) {
        do {
            server = try LoopbackHTTPServer(port: port)
        } catch {
            throw AdapterFailure(.crashed, "the runner could not start its loopback HTTP server: \(error)")
        }
        self.timeout = timeout
    }

    var baseURL: String { server.baseURL }
    var port: UInt16 { server.port }

    /// Responses and resets sent so far, for the `httpAnswered` of the next barrier.
    var answered: Int { server.answeredCount }

    /// Refuses effects that do not belong in loopback mode: `http` effects, and ids of the reserved prefix.
    func admit(_ effect: AdapterMessage) throws(AdapterFailure) {
        if case .http = effect {
            throw AdapterFailure(.protocolViolation, "the adapter asked for loopback HTTP but sent an 'http' effect")
        }
        if let id = effect.effectID, id.hasPrefix(Self.idPrefix) {
            throw AdapterFailure(.protocolViolation, "effect id '\(id)': the prefix '\(Self.idPrefix)' is the runner's in loopback mode")
        }
    }

    /// After a barrier answer: waits until the server has every request the client started, and returns the
    /// new ones as `http` messages with ids, in canonical order.
    func collect(started: Int?) throws(AdapterFailure) -> [AdapterMessage] {
        guard let started else {
            throw AdapterFailure(.protocolViolation, "in loopback mode every barrier answer carries 'httpStarted'")
        }
        // Every request collected so far got an id: the wait is for the rest, and its limit grows with them.
        let limit = StepTimeLimit.limit(base: timeout, commands: started - counter)
        let received = server.waitForReceived(atLeast: started, timeout: limit)
        guard received >= started else {
            throw AdapterFailure(.hung, "the adapter reported \(started) HTTP requests started; the loopback server received \(received) within \(limit)")
        }
        guard received == started else {
            throw AdapterFailure(.protocolViolation, "the loopback server received \(received) HTTP requests; the adapter reported only \(started) started")
        }
        let batch = server.takeRequests()
            .map { (exchange: $0.exchange, cause: Self.cause(of: $0), tag: $0.header(Self.tagHeader), request: Self.message(for: $0)) }
            .map { (key: AdapterMessage.http(id: "", cause: $0.cause, $0.request).json.jsonText, item: $0) }
            .sorted { $0.key < $1.key }
        return batch.map { entry in
            counter += 1
            let id = "\(Self.idPrefix)\(counter)"
            exchanges[id] = entry.item.exchange
            if let tag = entry.item.tag, !tag.isEmpty { tags[tag] = id }
            return .http(id: id, cause: entry.item.cause, entry.item.request)
        }
    }

    func owns(_ id: String) -> Bool { exchanges[id] != nil }

    /// The trace id of the request the client tagged `tag` (`X-Conformance-Request`), if one arrived.
    func exchangeID(tagged tag: String) -> String? { tags[tag] }

    /// The client gave up on a request: it is never answered, and not counted in `httpAnswered`.
    func abandon(_ id: String) { exchanges[id] = nil }

    /// Sends the answer the world chose: the response, or for a failure a reset connection.
    func answer(_ id: String, _ outcome: HTTPOutcome) {
        guard let exchange = exchanges.removeValue(forKey: id) else { return }
        switch outcome {
        case .response(let response): server.respond(to: exchange, with: Self.response(response))
        case .failure: server.reset(exchange)
        }
    }

    /// What the server noticed (refused requests), for the trace.
    func takeLog() -> [String] { server.takeLog() }

    func stop() { server.stop() }

    // MARK: Conversions

    static func cause(of request: LoopbackHTTPRequest) -> String? {
        request.header(causeHeader).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The request as an `http` effect carries it: lower-case header names without the transport headers,
    /// repeated headers joined with ", ", and the body as JSON (a string when it is not JSON, null when empty).
    static func message(for request: LoopbackHTTPRequest) -> HTTPRequestMessage {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.lowercased()
            guard !transportHeaders.contains(name) else { continue }
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        let text = String(decoding: request.body, as: UTF8.self)
        let body: JSONValue = request.body.isEmpty ? .null : ((try? JSONParser.parse(text)) ?? .string(text))
        return HTTPRequestMessage(method: request.method, path: request.target, headers: headers, body: body)
    }

    static func response(_ response: HTTPResponseMessage) -> LoopbackHTTPResponse {
        var fields = response.headers.sorted { $0.key < $1.key }.map { HTTPHeaderField($0.key, $0.value) }
        let body: [UInt8] = response.body.isNull ? [] : Array(response.body.jsonText.utf8)
        if !body.isEmpty && !response.headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            fields.append(HTTPHeaderField("content-type", "application/json"))
        }
        return LoopbackHTTPResponse(status: response.status, headers: fields, body: body)
    }
}
