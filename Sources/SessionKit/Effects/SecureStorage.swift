import Foundation

/// Platform secure storage (Keychain, Keystore): the only place SessionKit keeps tokens.
public protocol SecureStorage: Sendable {
    /// The item stored under `key`, or `nil` when there is none.
    func read(_ key: String) async throws(SecureStorageError) -> Data?
    /// Stores `data` under `key` as one item, replacing any previous item, with the given accessibility.
    func write(_ data: Data, for key: String, accessibility: SecureStorageAccessibility) async throws(SecureStorageError)
    /// Removes the item stored under `key`; removing a missing item succeeds.
    func delete(_ key: String) async throws(SecureStorageError)
}

/// When an item can be read or written, as on iOS.
public enum SecureStorageAccessibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// Available once the device has been unlocked after boot, including while it is locked again.
    /// Tokens that background work needs use this class.
    case afterFirstUnlock
    /// Available only while the device is unlocked.
    case whenUnlocked
}

/// A secure storage failure.
public struct SecureStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        /// The item cannot be accessed yet (locked device, before first unlock). Not a sign-out.
        case deviceLocked
        /// Storage failed for another reason; treated as retryable.
        case unavailable
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, for diagnostics.
    public var context: String

    /// Creates an error.
    public init(_ code: Code, context: String = "") {
        self.code = code
        self.context = context
    }

    public var description: String { context.isEmpty ? "secure storage \(code.rawValue)" : "secure storage \(code.rawValue): \(context)" }
}
