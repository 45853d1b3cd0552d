/// The authorization server's rules, once for every dialect: sign-in, refresh with rotation and reuse
/// detection, revocation of a whole token family, and whether an access token is accepted. Time is the
/// server's clock in seconds. The HTTP shape of each answer belongs to the endpoints (`WorldServer`).
public struct AuthServer: Sendable {
    struct Family: Sendable {
        let account: String
        var currentRefresh: String
        var previousRefresh: String?
        var rotatedAt: Double
        var revoked = false
        var accessTokens: [String]
    }

    /// A token pair the server issued.
    public struct Grant: Sendable, Hashable {
        public let access: IssuedToken
        /// Nil when the server does not rotate refresh tokens (the client keeps the one it has).
        public let refresh: IssuedToken?
        public let account: String
        public let lifetime: Double
    }

    /// Why a grant was refused.
    public enum Refusal: Error, Sendable, Hashable {
        /// Wrong email or password.
        case invalidCredentials
        /// The refresh token is unknown, of a revoked family, or rotated outside the reuse interval.
        case invalidGrant
    }

    public private(set) var vault: TokenVault
    var families: [Family] = []
    public private(set) var accounts: [WorldAccount]
    public var accessTokenLifetime: Double = 300
    /// Seconds after a rotation during which the immediately previous refresh token is accepted once more.
    public var reuseInterval: Double = 0
    /// Whether a refresh issues a new refresh token (and retires the presented one).
    public var rotatesRefreshTokens = true
    public private(set) var log: [String] = []

    public init(seed: UInt64, accounts: [WorldAccount] = WorldAccount.all) {
        vault = TokenVault(seed: seed)
        self.accounts = accounts
    }

    public mutating func addAccount(_ account: WorldAccount) {
        accounts.removeAll { $0.email == account.email }
        accounts.append(account)
    }

    public func account(withID id: String) -> WorldAccount? { accounts.first { $0.id == id } }

    public mutating func login(email: String, password: String, at time: Double) -> Result<Grant, Refusal> {
        guard let account = accounts.first(where: { $0.email == email }), account.password == password else {
            return .failure(.invalidCredentials)
        }
        let family = families.count
        let access = issueAccess(account: account.id, family: family, at: time)
        let refresh = vault.issue(.refresh, account: account.id, family: family, at: time, lifetime: nil)
        families.append(Family(account: account.id, currentRefresh: refresh.value, rotatedAt: time,
                               accessTokens: [access.value]))
        log.append("login \(account.name): \(access.handle), \(refresh.handle)")
        return .success(Grant(access: access, refresh: refresh, account: account.id, lifetime: accessTokenLifetime))
    }

    public mutating func refresh(_ presented: String?, at time: Double) -> Result<Grant, Refusal> {
        guard let presented, let token = vault.token(presented), token.kind == .refresh else {
            log.append("refresh with an unknown token: invalid_grant")
            return .failure(.invalidGrant)
        }
        var family = families[token.family]
        guard !family.revoked else {
            log.append("refresh with \(token.handle) of a revoked family: invalid_grant")
            return .failure(.invalidGrant)
        }
        let isCurrent = family.currentRefresh == presented
        // The immediately previous token is accepted once more, and only while the interval lasts.
        let withinReuse = reuseInterval > 0 && family.previousRefresh == presented && time - family.rotatedAt < reuseInterval
        guard isCurrent || withinReuse else {
            family.revoked = true
            families[token.family] = family
            log.append("reuse of rotated \(token.handle): family revoked")
            return .failure(.invalidGrant)
        }
        let access = issueAccess(account: family.account, family: token.family, at: time)
        family.accessTokens.append(access.value)
        var refresh: IssuedToken?
        if rotatesRefreshTokens {
            let issued = vault.issue(.refresh, account: family.account, family: token.family, at: time, lifetime: nil)
            family.previousRefresh = isCurrent ? presented : nil
            family.currentRefresh = issued.value
            family.rotatedAt = time
            refresh = issued
        }
        families[token.family] = family
        log.append("refresh \(token.handle)\(isCurrent ? "" : " (within the reuse interval)"): \(access.handle)\(refresh.map { ", \($0.handle)" } ?? "")")
        return .success(Grant(access: access, refresh: refresh, account: family.account, lifetime: accessTokenLifetime))
    }

    /// Revokes the family of any token the server issued (RFC 7009 §2.1); an unknown token changes nothing.
    /// Returns whether a family was revoked.
    @discardableResult
    public mutating func revoke(_ presented: String?) -> Bool {
        guard let presented, let token = vault.token(presented) else { return false }
        families[token.family].revoked = true
        log.append("revoke \(token.handle): family revoked")
        return true
    }

    public mutating func revokeAll(account: String) {
        for index in families.indices where families[index].account == account {
            families[index].revoked = true
        }
        log.append("server revoked every session of \(account)")
    }

    /// Every access token issued so far (before `cutoff`, server time, when given) expires at `time` at the latest
    /// (the client is not told).
    public mutating func expireAccessTokens(at time: Double, issuedBefore cutoff: Double = .infinity) {
        vault.expireAccessTokens(at: time, issuedBefore: cutoff)
    }

    /// Why an access token is not accepted, or nil when it is.
    public func accessProblem(_ presented: String?, at time: Double) -> AccessProblem? {
        guard let presented else { return .missing }
        guard let token = vault.token(presented), token.kind == .access else { return .unknown }
        if families[token.family].revoked { return .revoked }
        if let expiry = token.expiresAt, time >= expiry { return .expired }
        return nil
    }

    public func isRevoked(account: String) -> Bool {
        families.contains { $0.account == account && $0.revoked }
    }

    /// Whether the family of `token` is revoked; false for a token the server never issued.
    public func isFamilyRevoked(of token: String) -> Bool {
        vault.token(token).map { families[$0.family].revoked } ?? false
    }

    /// Whether `refreshToken` would be accepted as the current token of a live family.
    public func isRefreshTokenActive(_ refreshToken: String) -> Bool {
        guard let token = vault.token(refreshToken), token.kind == .refresh else { return false }
        let family = families[token.family]
        return !family.revoked && family.currentRefresh == refreshToken
    }

    private mutating func issueAccess(account: String, family: Int, at time: Double) -> IssuedToken {
        vault.issue(.access, account: account, family: family, at: time, lifetime: accessTokenLifetime)
    }
}

/// Why the resource server refuses an access token (RFC 6750 §3.1).
public enum AccessProblem: String, Sendable, Hashable {
    /// No `Authorization: Bearer` header: a bare challenge, no error code.
    case missing
    /// A token the server never issued, or not an access token.
    case unknown
    case expired
    /// The token's family was revoked: the session is over, refreshing will not help.
    case revoked
}
