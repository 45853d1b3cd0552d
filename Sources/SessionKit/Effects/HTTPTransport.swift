import Foundation

/// Sends one HTTP request and returns the response, or a classified failure.
///
/// SessionKit performs no I/O of its own: every network exchange goes through this protocol, so a test
/// or a conformance runner can answer, delay or fail each request when it chooses.
public protocol HTTPTransport: Sendable {
    /// Sends `request`. A response of any status is a `HTTPResponse`; only the absence of a response
    /// (timeout, offline, lost connection) is a `TransportFailure`.
    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse
}

/// The HTTP methods SessionKit uses.
public enum HTTPMethod: String, Sendable, Hashable, Codable {
    case get = "GET"
    case post = "POST"
}

/// An outgoing HTTP request. Its `description` redacts the `Authorization` header and the body,
/// which carry tokens and passwords.
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPMethod
    /// The path relative to the API base, for example `/auth/refresh`.
    public var path: String
    /// Header fields. SessionKit sets `Authorization` and `Content-Type` only.
    public var headers: [String: String]
    /// The JSON body, if any. May carry a password or a refresh token.
    public var body: Data?

    /// Creates a request.
    public init(method: HTTPMethod, path: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var description: String {
        var parts = ["\(method.rawValue) \(path)"]
        if header("Authorization") != nil { parts.append("Authorization: <redacted>") }
        if let body { parts.append("body: <\(body.count) bytes redacted>") }
        return parts.joined(separator: " ")
    }
}

/// An HTTP response. Its `description` shows the status and body size only: bodies may carry tokens.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var description: String { "HTTP \(status) (\(body.count) bytes)" }
}
