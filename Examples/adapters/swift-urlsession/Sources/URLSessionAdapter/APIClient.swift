import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the app's networking layer throws.
enum APIError: Error {
    /// A response outside 2xx, with the `error` field of its JSON body.
    case status(Int, code: String?)
    /// No response: the connection failed or timed out.
    case transport
}

/// The app's HTTP client: URLSession, a bearer token on every request, and an interceptor-style 401 handler
/// that awaits the single-flight refresh and retries the request once with the new token.
@ClientActor final class APIClient {
    let baseURL: URL
    private let session: URLSession
    private let refresher: TokenRefresher
    private let accessToken: @ClientActor () -> String?
    /// The deadline of every request, in seconds of the runner's virtual clock (`--request-timeout`), or nil.
    private let requestTimeout: Double?

    init(baseURL: URL, refresher: TokenRefresher, requestTimeout: Double?, accessToken: @escaping @ClientActor () -> String?) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // For the adapter, not the app: a request queued behind URLSession's per-host limit (6) has not
        // reached the server, yet the host counts it started; so no queue.
        configuration.httpMaximumConnectionsPerHost = 4096
        // For the adapter too: on a loaded machine FoundationNetworking can take longer than the default 60 s
        // to get through a thousand simultaneous requests, and a request timed out by the stack is a failure
        // the world never caused. The runner's per-step timeout (--timeout) is what catches a real hang.
        configuration.timeoutIntervalForRequest = 600
        self.session = URLSession(configuration: configuration)
        self.baseURL = baseURL
        self.refresher = refresher
        self.accessToken = accessToken
        self.requestTimeout = requestTimeout
    }

    /// GET an authenticated resource: on a 401, one shared refresh, then one retry.
    func get(_ path: String) async throws -> Data {
        let request = URLRequest(url: baseURL.appendingPathComponent(path))
        let (data, response) = try await send(authorized(request))
        if response.statusCode == 401 {
            let tokens = try await refresher.refresh()
            var retry = request
            retry.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
            return try Self.checked(await send(retry))
        }
        return try Self.checked((data, response))
    }

    /// POST JSON without a bearer token (the auth endpoints); no 401 handling, so a failed refresh can never
    /// start another refresh.
    func post(_ path: String, json: [String: String]) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(json)
        return try Self.checked(await send(request))
    }

    private func authorized(_ request: URLRequest) -> URLRequest {
        var request = request
        if let token = accessToken() { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// Every request of the app goes through here: the one place the host counts it.
    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var request = request
        if let cause = Host.shared.cause { request.setValue(cause, forHTTPHeaderField: "X-Conformance-Cause") }
        #if canImport(FoundationNetworking)
        // For the adapter, not the app: FoundationNetworking's libcurl silently re-sends a request whose reused
        // connection was reset, which the host could not count; a fresh connection per request has no resend.
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        if let requestTimeout { return try await send(request, deadline: requestTimeout) }
        Host.shared.requestStarted()
        defer { Host.shared.responseDelivered() }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw APIError.transport }
            return (data, http)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.transport
        }
    }

    /// `send` with a deadline on the runner's virtual clock, as `timeoutIntervalForRequest` is in an app (real time
    /// there; docs/porting-guide.md, Real-time waits): the request is tagged and raced against a `sleep`. When the
    /// sleep ends first, the runner is told (`abandon` with the tag), the URLSession task is cancelled and the
    /// request fails as a timeout; it is never counted delivered, since the runner never answers it. When the
    /// response (or a transport error) comes first, the sleep is abandoned.
    private func send(_ request: URLRequest, deadline seconds: Double) async throws -> (Data, HTTPURLResponse) {
        var request = request
        let tag = Host.shared.newRequestTag()
        request.setValue(tag, forHTTPHeaderField: "X-Conformance-Request")
        let exchange = TimedExchange()
        Host.shared.requestStarted()
        let outcome = await withCheckedContinuation { continuation in
            exchange.continuation = continuation
            let task = session.dataTask(with: request) { data, response, error in
                // On URLSession's thread: back to the client's executor (counted until it runs).
                let outcome: TimedExchange.Outcome
                if error == nil, let data, let response = response as? HTTPURLResponse {
                    outcome = .response(data, status: response.statusCode)
                } else {
                    outcome = .transport
                }
                Host.shared.spawn { exchange.ended(outcome) }
            }
            exchange.task = task
            exchange.sleep = Host.shared.startSleep(seconds: seconds) { exchange.deadlinePassed(tag: tag) }
            task.resume()
        }
        switch outcome {
        case .response(let data, let status):
            guard let response = HTTPURLResponse(url: request.url ?? baseURL, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil) else {
                throw APIError.transport
            }
            return (data, response)
        case .transport, .timedOut:
            throw APIError.transport
        }
    }

    private static func checked(_ exchange: (Data, HTTPURLResponse)) throws -> Data {
        let (data, response) = exchange
        guard (200..<300).contains(response.statusCode) else {
            let body = try? JSONDecoder().decode([String: String].self, from: data)
            throw APIError.status(response.statusCode, code: body?["error"])
        }
        return data
    }
}

/// One request raced against its deadline; whichever ends first resumes the caller, once.
@ClientActor private final class TimedExchange {
    enum Outcome: Sendable {
        case response(Data, status: Int)
        case transport
        case timedOut
    }

    var continuation: CheckedContinuation<Outcome, Never>?
    var task: URLSessionDataTask?
    var sleep: String?

    /// The response or a transport error came: the sleep is no longer needed.
    func ended(_ outcome: Outcome) {
        guard let continuation else { return } // the deadline passed first: this is the cancelled task's end
        self.continuation = nil
        if let sleep { Host.shared.abandon(sleep, reason: "answered") }
        Host.shared.responseDelivered()
        continuation.resume(returning: outcome)
    }

    /// The sleep's reply came first: give up on the request.
    func deadlinePassed(tag: String) {
        guard let continuation else { return }
        self.continuation = nil
        Host.shared.abandon(tag, reason: "timeout")
        task?.cancel()
        continuation.resume(returning: .timedOut)
    }
}
