import Foundation

/// Owns the session record in secure storage. Operations run one at a time in arrival order, and a write
/// tagged with a generation is dropped if that generation is no longer current when its turn comes.
actor CredentialVault {
    private enum State {
        case unloaded
        case loaded(SessionRecord)
    }

    private var state: State = .unloaded
    private let storage: any SecureStorage
    private let key: String
    private let accessibility: SecureStorageAccessibility
    private let generations: GenerationCounter
    private let logger: SessionLogger
    private let lock = AsyncFIFOLock()
    /// Session ends whose write failed: applied with the next write that succeeds, so a later refresh, sign-in
    /// or revocation bookkeeping never writes an ended session back, and the end completes as soon as storage
    /// works again. `endsFinished` is told then (the client drops its session-end marker).
    private var pendingEnds: [VaultMutation] = []
    private let endsFinished: @Sendable () async -> Void
    /// The failed-end-forgotten defect (docs/known-bad.md); false for the reference.
    private let forgetsFailedEnds: Bool
    /// The refresh-token-copied-to-preferences defect: where the copy goes; nil for the reference.
    private let refreshTokenCopy: (any PreferencesStorage)?
    /// The restore-prefetches-with-mirrored-token defect: where the access token is mirrored; nil for the reference.
    private let accessTokenCopy: (any PreferencesStorage)?

    init(storage: any SecureStorage, key: String, accessibility: SecureStorageAccessibility, generations: GenerationCounter,
         logger: SessionLogger, endsFinished: @escaping @Sendable () async -> Void = {}, forgetsFailedEnds: Bool = false,
         refreshTokenCopy: (any PreferencesStorage)? = nil, accessTokenCopy: (any PreferencesStorage)? = nil) {
        self.forgetsFailedEnds = forgetsFailedEnds
        self.refreshTokenCopy = refreshTokenCopy
        self.accessTokenCopy = accessTokenCopy
        self.storage = storage
        self.key = key
        self.accessibility = accessibility
        self.generations = generations
        self.logger = logger
        self.endsFinished = endsFinished
    }

    /// Where the restore-prefetches-with-mirrored-token defect mirrors the access token.
    static let accessTokenCopyKey = "auth.access-token"

    /// Reads the record; throws while storage is locked.
    func load() async throws(SecureStorageError) -> SessionRecord {
        await lock.acquire()
        defer { lock.release() }
        return try await currentRecord()
    }

    /// Applies `mutation` and writes the whole record as one item. With `generation`, writes only if it
    /// is still current at write time.
    func commit(_ mutation: VaultMutation, ifGeneration generation: SessionGeneration?) async -> CommitResult {
        await lock.acquire()
        defer { lock.release() }
        if let generation, generations.current != generation { return .stale }
        var record: SessionRecord
        do {
            record = try await currentRecord()
        } catch {
            return .failed(FailureClass(error))
        }
        if let generation, generations.current != generation { return .stale }
        let pending = pendingEnds
        for end in pending { end.apply(to: &record) }
        mutation.apply(to: &record)
        // DEFECT restore-prefetches-with-mirrored-token: the mirror goes first when the session ends, whatever the
        // secure write does next.
        if let accessTokenCopy, record.active == nil { try? await accessTokenCopy.removeValue(for: Self.accessTokenCopyKey) }
        do {
            if record.isEmpty {
                try await storage.delete(key)
            } else {
                try await storage.write(Self.encode(record), for: key, accessibility: accessibility)
            }
        } catch {
            // DEFECT failed-end-forgotten: the end that could not be written is dropped; the next write of the
            // record starts from the record as it was, the ended session in it.
            if case .endSession = mutation, !forgetsFailedEnds, !pendingEnds.contains(where: { $0.endsSame(as: mutation) }) {
                pendingEnds.append(mutation)
            }
            return .failed(FailureClass(error))
        }
        state = .loaded(record)
        // DEFECT refresh-token-copied-to-preferences: a "remember me" copy of the refresh token in plain
        // preferences, kept in step with the record and removed with the session.
        if let refreshTokenCopy {
            if let active = record.active {
                try? await refreshTokenCopy.setValue(Data(active.refreshToken.secretValue.utf8), for: "auth.remember")
            } else {
                try? await refreshTokenCopy.removeValue(for: "auth.remember")
            }
        }
        // DEFECT restore-prefetches-with-mirrored-token: the access token mirrored in plain preferences (for a widget
        // to read), kept in step with the record; it went before the write when the session ended.
        if let accessTokenCopy, let active = record.active {
            try? await accessTokenCopy.setValue(Data(active.accessToken.secretValue.utf8), for: Self.accessTokenCopyKey)
        }
        if !pending.isEmpty {
            pendingEnds = []
            await endsFinished()
        }
        return .committed
    }

    private func currentRecord() async throws(SecureStorageError) -> SessionRecord {
        switch state {
        case .loaded(let record):
            return record
        case .unloaded:
            let data = try await storage.read(key)
            let record = decode(data)
            state = .loaded(record)
            return record
        }
    }

    private func decode(_ data: Data?) -> SessionRecord {
        guard let data else { return SessionRecord() }
        guard let record = try? JSONDecoder().decode(SessionRecord.self, from: data) else {
            logger.log(.warning, "storage.record-unreadable", ["bytes": String(data.count)])
            return SessionRecord()
        }
        return record
    }

    private static func encode(_ record: SessionRecord) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings and integers cannot fail.
        return (try? encoder.encode(record)) ?? Data()
    }
}
