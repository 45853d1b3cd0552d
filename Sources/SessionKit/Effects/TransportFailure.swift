/// Why an HTTP exchange produced no response.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. Every kind is retryable; none of them means the session was rejected.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// No response in time. Indefinite: the server may have processed the request.
        case timeout
        /// The device is offline. Definite: the request never left the device.
        case offline
        /// The connection dropped after the request was sent. Indefinite.
        case connectionLost
        /// The exchange was cancelled by the caller.
        case cancelled
    }

    /// The class of failure.
    public var kind: Kind
    /// Free text for diagnostics. Never a token.
    public var context: String

    /// Creates a failure.
    public init(_ kind: Kind, context: String = "") {
        self.kind = kind
        self.context = context
    }

    /// Whether the server certainly did not process the request. A timed-out refresh is indefinite:
    /// the server may have rotated the refresh token.
    public var isDefinite: Bool { kind == .offline || kind == .cancelled }

    public var description: String { context.isEmpty ? "transport \(kind.rawValue)" : "transport \(kind.rawValue): \(context)" }
}
