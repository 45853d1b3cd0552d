/// One header field as it came over the wire: the name as the client spelled it, the value without
/// surrounding whitespace.
public struct HTTPHeaderField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request the server read completely and parsed.
public struct LoopbackHTTPRequest: Sendable, Hashable {
    /// The server's number for this exchange (1, 2, ...), in the order requests were completed. Answer
    /// with ``LoopbackHTTPServer/respond(to:with:)`` or ``LoopbackHTTPServer/reset(_:)``.
    public let exchange: Int
    public let method: String
    /// The request target in origin form: the path and any query string.
    public let target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    public let version: String
    public let headers: [HTTPHeaderField]
    public let body: [UInt8]

    public init(exchange: Int, method: String, target: String, version: String, headers: [HTTPHeaderField], body: [UInt8]) {
        self.exchange = exchange
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The values of a header, matched case-insensitively, joined with ", " as RFC 9110 allows.
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

/// A response the server writes: `content-length` and `connection` are the server's to set.
public struct LoopbackHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPHeaderField]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The response's bytes on the wire.
    func serialized(closing: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for field in headers where !Self.framingHeaders.contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "content-length: \(body.count)\r\n"
        if closing { head += "connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// Headers that describe the connection or the framing: the server writes its own.
    static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// The server's bounds. A request over a bound is answered with the matching 4xx and its connection closed.
public struct LoopbackLimits: Sendable {
    /// The request line, without its CRLF (over it: 414).
    public var maxRequestLineBytes = 8 * 1024
    /// The whole header section, request line included (over it: 431).
    public var maxHeaderBytes = 32 * 1024
    /// Header fields per request (over it: 431).
    public var maxHeaderCount = 100
    /// The body, from `content-length` (over it: 413).
    public var maxBodyBytes = 1024 * 1024
    /// From the first byte of a request to its last (over it: 408, and the connection is closed).
    public var requestTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection with nothing pending may stay silent before the server closes it.
    public var idleTimeout: Duration = .seconds(120)
    /// Open connections at once; further clients wait in the listen backlog.
    public var maxConnections = 4096

    public init() {}
}

public struct LoopbackServerError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
