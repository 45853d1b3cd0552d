import Foundation

/// Plain, unencrypted app storage (UserDefaults, SharedPreferences). SessionKit keeps the account-keyed
/// content cache here and never a token.
public protocol PreferencesStorage: Sendable {
    func value(for key: String) async throws(PreferencesError) -> Data?
    func setValue(_ data: Data, for key: String) async throws(PreferencesError)
    func removeValue(for key: String) async throws(PreferencesError)
}

/// A preferences storage failure.
public struct PreferencesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, for diagnostics.
    public var context: String

    /// Creates an error.
    public init(context: String = "") {
        self.context = context
    }

    public var description: String { "preferences failure: \(context)" }
}
