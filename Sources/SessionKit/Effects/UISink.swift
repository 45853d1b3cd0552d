import Foundation

/// Receives what the app would put on screen: content and whose it is, and the sign-in prompt.
public protocol UISink: Sendable {
    func present(_ event: UIEvent)
}

/// Something shown to or removed from the user.
public enum UIEvent: Sendable, Hashable, CustomStringConvertible {
    /// A resource's content is on screen, with the account it belongs to.
    case contentShown(ResourceContent)
    /// Every piece of content of `account` is removed from screen (sign-out, rejection, switch).
    case contentCleared(account: AccountID)
    /// The sign-in screen is shown. Exactly once per session end, never once per screen.
    case signInPromptShown(reason: SignInPromptReason)

    public var description: String {
        switch self {
        case .contentShown(let content): "contentShown \(content)"
        case .contentCleared(let account): "contentCleared account=\(account)"
        case .signInPromptShown(let reason): "signInPromptShown reason=\(reason.rawValue)"
        }
    }
}

/// Why the sign-in screen is shown.
public enum SignInPromptReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// Launch found no stored session.
    case noStoredSession
    /// The server rejected the session (invalid grant, revoked) at launch or on refresh.
    case sessionRejected
    /// The user signed out.
    case signedOut
}
