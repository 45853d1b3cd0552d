import Foundation

/// The business-data cache, persisted in preferences and keyed by account ID and resource, never by
/// path alone. Writes are tagged with a generation and dropped once it is stale; clearing an account
/// removes every entry it listed, and a clear that preferences refused is owed until a later one succeeds.
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

    /// The cached body of `resource` for `account`, if any. Nothing while a clear of the account is owed: what
    /// is left belongs to a session that ended.
    func lookup(resource: String, account: AccountID) async -> Data? {
        await lock.acquire()
        defer { lock.release() }
        guard !owed.contains(account), await loadIndex(account).contains(resource) else { return nil }
        return try? await preferences.value(for: entryKey(account, resource))
    }

    /// Accounts whose clear failed (preferences refused a removal): their entries stay hidden and the clear is
    /// owed. The client keeps its session-end marker, which names them, so the next launch finishes it.
    private(set) var owed: Set<AccountID> = []

    /// Removes every cached entry of `account`, and retries every clear still owed. Returns whether every
    /// removal succeeded, so that nothing is owed any more.
    func clear(account: AccountID) async -> Bool {
        await lock.acquire()
        defer { lock.release() }
        owed.insert(account)
        return await retryOwed()
    }

    /// Retries every clear still owed; returns whether nothing is owed any more.
    func clearOwed() async -> Bool {
        await lock.acquire()
        defer { lock.release() }
        return await retryOwed()
    }

    private func retryOwed() async -> Bool {
        for owing in owed.sorted() where await removeEntries(of: owing) {
            owed.remove(owing)
        }
        return owed.isEmpty
    }

    /// Removes the account's entries, then its index. An entry that could not be removed keeps the index, so
    /// a later clear still finds it: never data that no index lists.
    private func removeEntries(of account: AccountID) async -> Bool {
        let index = await loadIndex(account)
        var kept: Set<String> = []
        for resource in index.sorted() {
            do {
                try await preferences.removeValue(for: entryKey(account, resource))
            } catch {
                kept.insert(resource)
            }
        }
        var cleared = kept.isEmpty
        if cleared {
            do {
                try await preferences.removeValue(for: indexKey(account))
            } catch {
                cleared = false
            }
        }
        // What the stored index still lists: everything, unless it is gone.
        indexes[account] = .loaded(cleared ? [] : index)
        if cleared {
            logger.log(.info, "cache.cleared", ["account": account.rawValue, "entries": String(index.count)])
        } else {
            logger.log(.warning, "cache.clear-failed", ["account": account.rawValue, "entries": String(index.count), "kept": String(kept.count)])
        }
        return cleared
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
