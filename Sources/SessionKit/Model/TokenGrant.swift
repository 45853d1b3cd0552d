/// A token response from login or refresh, as parsed from the wire.
struct TokenGrant: Sendable, Hashable, CustomStringConvertible {
    var accessToken: AccessToken
    /// `nil` when the server did not rotate the refresh token; the previous one stays valid.
    var refreshToken: RefreshToken?
    /// Seconds of access-token lifetime, counted from receipt.
    var expiresIn: Int
    /// The account the tokens belong to (login responses carry it).
    var account: AccountID?

    var description: String { "TokenGrant(expiresIn: \(expiresIn), <redacted>)" }
}
