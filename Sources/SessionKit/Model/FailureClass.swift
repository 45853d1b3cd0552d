/// The classes of failure SessionKit distinguishes, as recorded in logs, transitions and errors.
public enum FailureClass: String, Sendable, Hashable, CaseIterable, Codable {
    case timeout
    case offline
    case connectionLost
    /// HTTP 5xx.
    case serverError
    /// HTTP 429.
    case rateLimited
    /// A response that is neither success nor an explicit rejection (for example a 401 from the refresh endpoint).
    case unexpectedResponse
    /// The refresh endpoint answered 400/401 `invalid_grant`: the refresh token is dead.
    case invalidGrant
    /// The server reports the session revoked (`session_revoked`).
    case sessionRevoked
    /// Secure storage cannot be accessed yet (locked device).
    case storageLocked
    case storageUnavailable
    case invalidCredentials
    case cancelled

    /// Only these sign the user out.
    public var isExplicitRejection: Bool { self == .invalidGrant || self == .sessionRevoked }

    /// Failures that keep the session and are retried with backoff.
    public var isRetryable: Bool {
        switch self {
        case .timeout, .offline, .connectionLost, .serverError, .rateLimited, .storageLocked, .storageUnavailable: true
        case .unexpectedResponse, .invalidGrant, .sessionRevoked, .invalidCredentials, .cancelled: false
        }
    }

    /// The network is unreachable or dropped: offline browsing may serve the cache.
    public var isConnectivity: Bool { self == .offline || self == .timeout || self == .connectionLost }

    init(_ failure: TransportFailure) {
        switch failure.kind {
        case .timeout: self = .timeout
        case .offline: self = .offline
        case .connectionLost: self = .connectionLost
        case .cancelled: self = .cancelled
        }
    }

    init(_ error: SecureStorageError) {
        switch error.code {
        case .deviceLocked: self = .storageLocked
        case .unavailable: self = .storageUnavailable
        }
    }
}
