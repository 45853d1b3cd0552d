/// Everything SessionKit keeps in secure storage, written as ONE item so that the access token, the
/// refresh token and the revocation queue always change together (a kill mid-write cannot split a pair).
struct SessionRecord: Codable, Sendable, Hashable {
    var formatVersion = 1
    /// The current session, if any.
    var active: StoredSession?
    /// Refresh tokens of ended sessions whose remote revocation has not succeeded yet. Only the
    /// refresh token is kept, and only for that call.
    var pendingRevocations: [PendingRevocation] = []
    var nextRevocationID: UInt64 = 1

    var isEmpty: Bool { active == nil && pendingRevocations.isEmpty }
}

/// The persisted session: account and token pair.
struct StoredSession: Codable, Sendable, Hashable {
    /// Identifies one sign-in; survives refreshes. Ending a session clears the record only if it still
    /// holds this session, so a late clear cannot erase the next sign-in.
    var sessionID: String
    var account: AccountID
    var accessToken: AccessToken
    var refreshToken: RefreshToken
}

/// A refresh token waiting for remote revocation.
struct PendingRevocation: Codable, Sendable, Hashable {
    var id: UInt64
    var account: AccountID
    var refreshToken: RefreshToken
}

extension Token: Codable {
    init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secretValue)
    }
}

/// A change to the session record, applied read-modify-write under the vault's lock.
enum VaultMutation: Sendable {
    /// Sign-in or refresh: the new pair replaces the old as one unit.
    case setActive(StoredSession)
    /// Sign-out, rejection or switch: drop the session (if still the stored one) and queue its refresh
    /// token for revocation, in the same write.
    case endSession(sessionID: String, account: AccountID, revoke: RefreshToken?)
    case removeRevocation(id: UInt64)

    /// Whether both end the same session.
    func endsSame(as other: VaultMutation) -> Bool {
        guard case .endSession(let mine, _, _) = self, case .endSession(let theirs, _, _) = other else { return false }
        return mine == theirs
    }

    func apply(to record: inout SessionRecord) {
        switch self {
        case .setActive(let session):
            record.active = session
        case .endSession(let sessionID, let account, let revoke):
            if record.active?.sessionID == sessionID { record.active = nil }
            if let revoke, !record.pendingRevocations.contains(where: { $0.refreshToken == revoke }) {
                record.pendingRevocations.append(PendingRevocation(id: record.nextRevocationID, account: account, refreshToken: revoke))
                record.nextRevocationID += 1
            }
        case .removeRevocation(let id):
            record.pendingRevocations.removeAll { $0.id == id }
        }
    }
}

/// The outcome of a vault write.
enum CommitResult: Sendable, Hashable {
    case committed
    /// The generation moved on before the write: nothing was written.
    case stale
    case failed(FailureClass)
}
