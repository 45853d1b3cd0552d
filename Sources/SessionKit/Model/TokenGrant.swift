import Foundation

/// A token response from login or refresh, as parsed from the wire.
struct TokenGrant: Sendable, Hashable, CustomStringConvertible {
    var accessToken: AccessToken
    /// `nil` when the server did not rotate the refresh token; the previous one stays valid.
    var refreshToken: RefreshToken?
    /// Seconds of access-token lifetime, counted from receipt.
    var expiresIn: Int
    /// The account the tokens belong to (login responses carry it).
    var account: AccountID?
    /// The response's `Date`: the server's time of issue. Read only by the proactive-refresh-storm-after-clock-jump
    /// defect; the reference counts `expiresIn` from receipt on the monotonic clock.
    var serverDate: Date?

    var description: String { "TokenGrant(expiresIn: \(expiresIn), <redacted>)" }
}
