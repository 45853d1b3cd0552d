/// Every error code protocol v1 gives a meaning, and where it travels. Any other code a client puts in a
/// `result` is its own and means nothing to the runner. The "Errors" table of docs/adapter-protocol.md and the
/// schemas in Specs/schema/protocol/ list exactly these; ProtocolErrorCodeTests checks that all three agree.
public enum ProtocolErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No response in time; the server may have processed the request.
    case timeout
    /// The device is offline; the request never left.
    case offline
    /// The connection dropped after the request was sent; the server processed it, the response was lost.
    case connectionLost
    /// The device is locked and the item's accessibility class does not allow access now.
    case locked
    /// A secure-storage change failed for another reason than the lock state; nothing was written or deleted.
    case writeFailed
    /// The runner speaks another protocol version than the adapter's `hello`.
    case protocolVersion = "protocol-version"
    /// Sign-in input refused before any request (the one result code the cases count).
    case invalidInput

    /// Where a code travels.
    public enum Carrier: String, Sendable, Hashable, CaseIterable {
        /// `reply` `failure`, answering an `http` effect (runner to adapter).
        case httpFailure
        /// `reply` `error`, answering a `storage` effect (runner to adapter).
        case storageError
        /// the runner's `error`, refusing the handshake.
        case handshakeError
        /// `result` `error`, ending a command (adapter to runner).
        case commandResult
    }

    public var carrier: Carrier {
        switch self {
        case .timeout, .offline, .connectionLost: .httpFailure
        case .locked, .writeFailed: .storageError
        case .protocolVersion: .handshakeError
        case .invalidInput: .commandResult
        }
    }

    /// Whether the outcome is known when this code is sent.
    public var definite: Bool {
        switch self {
        case .timeout, .connectionLost: false
        case .offline, .locked, .writeFailed, .protocolVersion, .invalidInput: true
        }
    }

    /// The code with its `definite` flag and a message.
    public func info(_ message: String) -> ErrorInfo {
        ErrorInfo(code: rawValue, message: message, definite: definite)
    }
}
