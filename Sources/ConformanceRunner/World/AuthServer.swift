import JSONCore
import ConformanceProtocol

/// Login, refresh with rotation and reuse detection, revocation. Time is the server's clock.
struct AuthServer: Sendable {
    struct Family: Sendable {
        let account: String
        var currentRefresh: String
        var previousRefresh: String?
        var rotatedAt: Double
        var revoked = false
        var accessTokens: [String]
    }

    var vault: TokenVault
    var families: [Family] = []
    var accessTokenLifetime: Double = 300
    /// Seconds after a rotation during which the immediately previous refresh token is accepted once more.
    var reuseInterval: Double = 0
    private(set) var log: [String] = []

    init(seed: UInt64) { vault = TokenVault(seed: seed) }

    mutating func login(email: String, password: String, at time: Double) -> HTTPResponseMessage {
        guard let account = WorldAccount.withEmail(email), account.password == password else {
            return HTTPResponseMessage(status: 401, body: ["error": "invalid_credentials"])
        }
        let family = families.count
        let (access, refresh) = issuePair(account: account.id, family: family, at: time)
        families.append(Family(account: account.id, currentRefresh: refresh.value, rotatedAt: time,
                               accessTokens: [access.value]))
        log.append("login \(account.name): \(access.handle), \(refresh.handle)")
        return tokenResponse(access, refresh, account: account.id)
    }

    mutating func refresh(_ presented: String?, at time: Double) -> HTTPResponseMessage {
        let rejected = HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])
        guard let presented, let token = vault.token(presented), token.kind == .refresh else {
            log.append("refresh with an unknown token: invalid_grant")
            return rejected
        }
        var family = families[token.family]
        guard !family.revoked else {
            log.append("refresh with \(token.handle) of a revoked family: invalid_grant")
            return rejected
        }
        let isCurrent = family.currentRefresh == presented
        // The immediately previous token is accepted once more, and only while the interval lasts.
        let withinReuse = reuseInterval > 0 && family.previousRefresh == presented && time - family.rotatedAt < reuseInterval
        guard isCurrent || withinReuse else {
            family.revoked = true
            families[token.family] = family
            log.append("reuse of rotated \(token.handle): family revoked")
            return rejected
        }
        let (access, refresh) = issuePair(account: family.account, family: token.family, at: time)
        family.previousRefresh = isCurrent ? presented : nil
        family.currentRefresh = refresh.value
        family.rotatedAt = time
        family.accessTokens.append(access.value)
        families[token.family] = family
        log.append("refresh \(token.handle)\(isCurrent ? "" : " (within the reuse interval)"): \(access.handle), \(refresh.handle)")
        return tokenResponse(access, refresh, account: family.account)
    }

    mutating func revoke(_ presented: String?) -> HTTPResponseMessage {
        if let presented, let token = vault.token(presented) {
            families[token.family].revoked = true
            log.append("revoke \(token.handle): family revoked")
        }
        return HTTPResponseMessage(status: 200, body: ["revoked": true])
    }

    mutating func revokeAll(account: String) {
        for index in families.indices where families[index].account == account {
            families[index].revoked = true
        }
        log.append("server revoked every session of \(account)")
    }

    /// Why an access token is not accepted, or nil when it is.
    func accessProblem(_ presented: String?, at time: Double) -> String? {
        guard let presented, let token = vault.token(presented), token.kind == .access else { return "invalid_token" }
        if families[token.family].revoked { return "session_revoked" }
        if let expiry = token.expiresAt, time >= expiry { return "invalid_token" }
        return nil
    }

    func isRevoked(account: String) -> Bool {
        families.contains { $0.account == account && $0.revoked }
    }

    private mutating func issuePair(account: String, family: Int, at time: Double) -> (IssuedToken, IssuedToken) {
        let access = vault.issue(.access, account: account, family: family, at: time, lifetime: accessTokenLifetime)
        let refresh = vault.issue(.refresh, account: account, family: family, at: time, lifetime: nil)
        return (access, refresh)
    }

    private func tokenResponse(_ access: IssuedToken, _ refresh: IssuedToken, account: String) -> HTTPResponseMessage {
        HTTPResponseMessage(status: 200, headers: ["content-type": "application/json"], body: [
            "access_token": .string(access.value), "refresh_token": .string(refresh.value),
            "expires_in": .int(Int(accessTokenLifetime)), "token_type": "Bearer", "account_id": .string(account),
        ])
    }
}
