import Foundation

/// A durable note, in preferences, that a session is ending: written before the user is told the session
/// ended, deleted once its secure-storage record and account cache are gone. A process killed in between
/// (or a secure-storage write that failed) leaves the note, and the next launch finishes the end instead of
/// restoring the ended session (000: sign-out clears sensitive local state "immediately", and a restart must
/// not bring it back). A cache clear that preferences refused keeps it too (written again if its own write
/// was refused), and the next launch finishes the clear. It names the session and accounts, never a token.
struct SessionEndMarker: Codable, Sendable, Hashable {
    static let key = "session/ending"

    /// The ended session; nil once its end is durable and only cache clears are owed (then `account` is the
    /// first account owed one).
    var sessionID: String?
    var account: AccountID
    /// Whether the ended session's refresh token is to be revoked remotely (not after a server rejection).
    var revoke: Bool
    /// Other accounts whose cache clear is still owed (an earlier clear that preferences refused); absent
    /// when there are none.
    var uncleared: [AccountID]?

    /// Every account whose cache the next launch must clear.
    var accountsToClear: [AccountID] { [account] + (uncleared ?? []).filter { $0 != account } }

    static func read(_ preferences: any PreferencesStorage) async -> SessionEndMarker? {
        guard let data = try? await preferences.value(for: key) else { return nil }
        return try? JSONDecoder().decode(SessionEndMarker.self, from: data)
    }

    /// Whether the note reached storage.
    func write(_ preferences: any PreferencesStorage) async -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return false }
        do {
            try await preferences.setValue(data, for: Self.key)
            return true
        } catch {
            return false
        }
    }

    static func clear(_ preferences: any PreferencesStorage) async {
        try? await preferences.removeValue(for: key)
    }
}
