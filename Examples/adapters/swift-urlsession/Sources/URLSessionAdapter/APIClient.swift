import AdapterKit
import AdapterKitURLSession
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
    private let effects: ClientEffects
    private let session = URLSession(configuration: .conformanceLoopback())
    private let refresher: TokenRefresher
    private let accessToken: @ClientActor () -> String?
    /// The deadline of every request, in seconds of the runner's virtual clock (`--request-timeout`), or nil.
    private let requestTimeout: Double?

    init(effects: ClientEffects, baseURL: URL, refresher: TokenRefresher, requestTimeout: Double?, accessToken: @escaping @ClientActor () -> String?) {
        self.effects = effects
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

    /// Every request of the app goes through here: AdapterKit counts it for the barriers, adds the cause and tag
    /// headers, and with `--request-timeout` races it against a deadline on the runner's virtual clock, as
    /// `timeoutIntervalForRequest` is in an app (real time there; docs/porting-guide.md, Real-time waits): a request
    /// given up on is abandoned and its URLSession task cancelled, and fails as URLSession's timeout would.
    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await effects.data(for: request, from: session, deadline: requestTimeout)
            guard let http = response as? HTTPURLResponse else { throw APIError.transport }
            return (data, http)
        } catch let error as APIError {
            throw error
        } catch {
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
