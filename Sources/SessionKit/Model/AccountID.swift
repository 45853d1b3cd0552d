/// The server's stable identifier of a user account. Not a secret.
public struct AccountID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The server's identifier.
    public var rawValue: String

    /// Wraps a server identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a server identifier.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
