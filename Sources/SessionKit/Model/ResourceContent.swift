import Foundation

/// A fetched resource and the account it belongs to.
public struct ResourceContent: Sendable, Hashable, CustomStringConvertible {
    /// The resource name.
    public var resource: String
    /// The account the content belongs to.
    public var account: AccountID
    /// The content as served.
    public var body: Data
    /// Network or cache.
    public var origin: ContentOrigin
    /// The session generation the content was fetched in.
    public var generation: SessionGeneration

    /// Creates content.
    public init(resource: String, account: AccountID, body: Data, origin: ContentOrigin, generation: SessionGeneration) {
        self.resource = resource
        self.account = account
        self.body = body
        self.origin = origin
        self.generation = generation
    }

    public var description: String {
        "resource=\(resource) account=\(account) origin=\(origin.rawValue) generation=\(generation) bytes=\(body.count)"
    }
}

/// Where shown content came from.
public enum ContentOrigin: String, Sendable, Hashable, CaseIterable, Codable {
    /// Fetched from the server in the current session.
    case network
    /// From the account's cache, because the network was unreachable and the offline policy allows it.
    case offlineCache
    /// From the account's cache while restoring, before validation, as the offline policy allows.
    case cacheBeforeValidation
}
