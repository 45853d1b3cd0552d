/// The signed-in user's profile, from `GET /me`.
public struct AccountProfile: Sendable, Hashable, CustomStringConvertible {
    /// The account.
    public var accountID: AccountID
    /// The sign-in email.
    public var email: String
    /// The name to show.
    public var displayName: String

    /// Creates a profile.
    public init(accountID: AccountID, email: String, displayName: String) {
        self.accountID = accountID
        self.email = email
        self.displayName = displayName
    }

    public var description: String { "AccountProfile(\(accountID))" }
}
