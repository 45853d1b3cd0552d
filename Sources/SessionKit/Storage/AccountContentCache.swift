import Foundation

/// The business-data cache, persisted in preferences and keyed by account ID and resource, never by
/// path alone. Writes are tagged with a generation and dropped once it is stale; clearing an account
/// removes every entry it listed.
actor AccountContentCache {
    private enum IndexState {
        case unknown
        case loaded(Set<String>)
    }

    private var indexes: [AccountID: IndexState] = [:]
    private let preferences: any PreferencesStorage
    private let generations: GenerationCounter
    private let logger: SessionLogger
    private let lock = AsyncFIFOLock()
    /// The cache-keyed-by-path defect (docs/known-bad.md); false for the reference.
    private let keyedByPathOnly: Bool

    init(preferences: any PreferencesStorage, generations: GenerationCounter, logger: SessionLogger, keyedByPathOnly: Bool = false) {
        self.preferences = preferences
        self.generations = generations
        self.logger = logger
        self.keyedByPathOnly = keyedByPathOnly
    }

    static func entryKey(account: AccountID, resource: String) -> String { "cache/\(account.rawValue)/\(resource)" }
    static func indexKey(account: AccountID) -> String { "cache/\(account.rawValue)/.index" }

    private func entryKey(_ account: AccountID, _ resource: String) -> String {
        // DEFECT cache-keyed-by-path: the entry is keyed by the request path alone, shared by every account.
        keyedByPathOnly ? "cache/\(resource)" : Self.entryKey(account: account, resource: resource)
    }

    private func indexKey(_ account: AccountID) -> String {
        // DEFECT cache-keyed-by-path: one index for every account, as the entries are shared.
        keyedByPathOnly ? "cache/.index" : Self.indexKey(account: account)
    }

    /// Stores `body` for `account`, unless `generation` is no longer current.
    func store(_ body: Data, resource: String, account: AccountID, generation: SessionGeneration) async {
        await lock.acquire()
        defer { lock.release() }
        var index = await loadIndex(account)
        guard generations.current == generation else {
            logger.log(.debug, "cache.stale-write-dropped", ["account": account.rawValue, "resource": resource])
            return
        }
        do {
            // Index first: a kill between the two writes leaves an index entry without data, which a
            // clear still removes, never data that no index lists.
            if !index.contains(resource) {
                index.insert(resource)
                try await preferences.setValue(Self.encode(index), for: indexKey(account))
                indexes[account] = .loaded(index)
            }
            try await preferences.setValue(body, for: entryKey(account, resource))
        } catch {
            logger.log(.warning, "cache.write-failed", ["account": account.rawValue, "resource": resource])
        }
    }

    /// The cached body of `resource` for `account`, if any.
    func lookup(resource: String, account: AccountID) async -> Data? {
        await lock.acquire()
        defer { lock.release() }
        guard await loadIndex(account).contains(resource) else { return nil }
        return try? await preferences.value(for: entryKey(account, resource))
    }

    /// Removes every cached entry of `account`.
    func clear(account: AccountID) async {
        await lock.acquire()
        defer { lock.release() }
        let index = await loadIndex(account)
        for resource in index.sorted() {
            try? await preferences.removeValue(for: entryKey(account, resource))
        }
        try? await preferences.removeValue(for: indexKey(account))
        indexes[account] = .loaded([])
        logger.log(.info, "cache.cleared", ["account": account.rawValue, "entries": String(index.count)])
    }

    private func loadIndex(_ account: AccountID) async -> Set<String> {
        switch indexes[account] ?? .unknown {
        case .loaded(let index):
            return index
        case .unknown:
            let data = try? await preferences.value(for: indexKey(account))
            let index = data.flatMap { try? JSONDecoder().decode([String].self, from: $0) }.map(Set.init) ?? []
            indexes[account] = .loaded(index)
            return index
        }
    }

    private static func encode(_ index: Set<String>) -> Data {
        (try? JSONEncoder().encode(index.sorted())) ?? Data()
    }
}
