/// The declared offline policy: which cached resources of the account may be shown before the session
/// is validated at launch, or when the network is unreachable. Everything else stays hidden.
public struct OfflinePolicy: Sendable, Hashable {
    /// Resource names whose cached content may be shown unvalidated or offline.
    public var cachedResources: Set<String>

    /// Declares the resources that may be shown from cache.
    public init(cachedResources: Set<String>) {
        self.cachedResources = cachedResources
    }

    /// No cached content before validation or offline (the default).
    public static let none = OfflinePolicy(cachedResources: [])

    /// Whether `resource` may be shown from cache.
    public func allows(_ resource: String) -> Bool { cachedResources.contains(resource) }
}
