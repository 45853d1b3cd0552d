/// A bearer secret. `description`, `debugDescription` and reflection never reveal the value,
/// so a token interpolated into a log line or an error by mistake prints `<redacted>`.
struct Token<Kind: TokenKind>: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret. Read only to build an `Authorization` header or a request body, or to persist it.
    let secretValue: String

    init(_ secretValue: String) {
        self.secretValue = secretValue
    }

    var description: String { "\(Kind.label)(<redacted>)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

protocol TokenKind: Sendable {
    static var label: String { get }
}

enum AccessTokenKind: TokenKind {
    static let label = "AccessToken"
}

enum RefreshTokenKind: TokenKind {
    static let label = "RefreshToken"
}

typealias AccessToken = Token<AccessTokenKind>
typealias RefreshToken = Token<RefreshTokenKind>
