/// The error every public SessionKit operation throws: a code, the failure class behind it, and context.
/// Never carries a token, a password or an email address.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        /// Sign-in input failed validation; no request was sent.
        case invalidInput
        /// The server refused the email and password.
        case invalidCredentials
        /// `launch()` has not been called.
        case notLaunched
        /// Launch is still restoring the session.
        case restoreInProgress
        /// No session: the request was blocked before reaching the network.
        case notAuthenticated
        case signInInProgress
        case alreadySignedIn
        /// The session ended (rejected, signed out, switched) while the request was pending.
        case sessionEnded
        /// The response belonged to an older session generation and was discarded.
        case sessionChanged
        /// A refresh was needed and failed with a retryable failure; the session is kept.
        case refreshUnavailable
        /// The request was refused again after its one retry with a fresh token.
        case unauthorized
        case forbidden
        case notFound
        case transportFailure
        case serverError
        case invalidResponse
        case storageUnavailable
        case cancelled
    }

    /// What went wrong.
    public var code: Code
    /// The failure class behind it, when there is one.
    public var failureClass: FailureClass?
    /// Human-readable context; never a secret.
    public var context: String

    /// Creates an error.
    public init(_ code: Code, failureClass: FailureClass? = nil, context: String = "") {
        self.code = code
        self.failureClass = failureClass
        self.context = context
    }

    public var description: String {
        var text = "SessionError.\(code.rawValue)"
        if let failureClass { text += " [\(failureClass.rawValue)]" }
        if !context.isEmpty { text += ": \(context)" }
        return text
    }
}
