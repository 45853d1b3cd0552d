public import AdapterKit
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// URLSession in loopback mode, the recipe of `ClientEffects.loopback(deadline:_:)` for the stack of Apple platforms
// (FoundationNetworking on Linux). A module of its own, so that what links AdapterKit alone never links
// FoundationNetworking.

extension ClientEffects {
    /// Loopback mode: `request` sent through `session` with the conformance headers, counted for the barriers; with
    /// `deadline` (seconds on the runner's virtual clock), raced against a `sleep` as `loopback(deadline:_:)` does. A
    /// deadline that passes throws `URLError(.timedOut)`, what URLSession's own timeout throws.
    public func data(for request: URLRequest, from session: URLSession, deadline: Double? = nil) async throws -> (Data, URLResponse) {
        var request = request
        #if canImport(FoundationNetworking)
        // libcurl silently re-sends a request whose reused connection was reset, which no count would see; a fresh
        // connection per request has no resend.
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        let prepared = request
        do {
            return try await loopback(deadline: deadline) { headers in
                var request = prepared
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                return try await session.data(for: request)
            }
        } catch is LoopbackDeadlineExceeded {
            throw URLError(.timedOut)
        }
    }
}

extension URLSessionConfiguration {
    /// A configuration for a client under test in loopback mode: nothing cached, no queue behind the per-host
    /// connection limit (a queued request has not reached the server, yet it counts as started), and real-time
    /// timeouts far above any case (the deadline that matters is `data(for:from:deadline:)`'s, on the virtual
    /// clock; the runner's `--timeout` catches a real hang).
    public static func conformanceLoopback() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 4096
        configuration.timeoutIntervalForRequest = 600
        return configuration
    }
}
