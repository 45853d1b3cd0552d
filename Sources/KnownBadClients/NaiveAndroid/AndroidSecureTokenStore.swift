import AdapterKit
import ConformanceProtocol
import Foundation
import JSONCore

// A port of "Android - EncryptedSharedPreferences" of Specs/sources/003_a7334a1b43f9a998.txt, kept as close as
// Swift on this host allows. The runner's secure storage plays the "secure_prefs" file: SharedPreferences
// loads the whole file on first access (`by lazy`), then serves reads from memory; an edit changes memory at
// once and writes the whole file as ONE item with apply(), in the background, without waiting for it.

/// The Android port's types, kept apart from the iOS and Flutter ports' namesakes.
public enum NaiveAndroid {}

extension NaiveAndroid {
    // app/core/network/TokenStore/SecureTokenStore.kt
    protocol TokenStore: Sendable {
        // Adapted: `async`, because the first access loads the file, an effect here (a blocking read in Kotlin).
        func getAccessToken() async -> String?
        func getRefreshToken() async -> String?
        func save(accessToken: String, refreshToken: String) async
        func clear() async
    }

    /// EncryptedSharedPreferences "secure_prefs": the in-memory map and its file.
    final class EncryptedSharedPreferences: @unchecked Sendable {
        // @unchecked: `map` and `loading` are only touched with `lock` held.
        private let lock = NSLock()
        private var map: [String: String]?
        private var loading: Task<Void, Never>?
        private let storage: ClientEffects
        private let name: String

        init(storage: ClientEffects, name: String) {
            self.storage = storage
            self.name = name
        }

        /// The lazy load: the first caller reads the file, the others wait for it (Kotlin's `lazy` is synchronized).
        private func loaded() async -> [String: String] {
            let pending: Task<Void, Never> = lock.withLock {
                if let loading { return loading }
                let storage = storage, name = name
                let task = Task(executorPreference: storage.taskExecutor) { [weak self] in
                    // Credential-encrypted storage that cannot be read yet (before the first unlock) yields an
                    // empty map here; an app that is not direct-boot aware is not started then on Android.
                    var map: [String: String] = [:]
                    if case .success(let text?) = await storage.secureGet(name),
                       let object = (try? JSONParser.parse(text))?.object {
                        for (key, value) in object { if let value = value.string { map[key] = value } }
                    }
                    self?.lock.withLock { self?.map = map }
                }
                loading = task
                return task
            }
            await pending.value
            return lock.withLock { map ?? [:] }
        }

        func getString(_ key: String) async -> String? {
            await loaded()[key]
        }

        /// `prefs.edit { ... }`: the KTX default is apply(): memory now, the file later, nobody waits.
        func edit(_ change: @Sendable (inout [String: String]) -> Void) async {
            _ = await loaded()
            let snapshot: [String: String] = lock.withLock {
                var current = map ?? [:]
                change(&current)
                map = current
                return current
            }
            let storage = storage, name = name
            Task(executorPreference: storage.taskExecutor) {
                if snapshot.isEmpty {
                    _ = await storage.secureDelete(name)
                } else {
                    // The file is readable after the first unlock (credential-encrypted storage).
                    let text = JSONValue.object(snapshot.mapValues(JSONValue.string)).jsonText
                    _ = await storage.secureSet(name, text, accessibility: .afterFirstUnlock)
                }
            }
        }
    }

    final class SecureTokenStore: TokenStore {
        private let prefs: EncryptedSharedPreferences

        init(context: ClientEffects) {
            prefs = EncryptedSharedPreferences(storage: context, name: "secure_prefs")
        }

        func getAccessToken() async -> String? {
            await prefs.getString(Self.KEY_ACCESS_TOKEN)
        }

        func getRefreshToken() async -> String? {
            await prefs.getString(Self.KEY_REFRESH_TOKEN)
        }

        func save(accessToken: String, refreshToken: String) async {
            await prefs.edit {
                $0[Self.KEY_ACCESS_TOKEN] = accessToken
                $0[Self.KEY_REFRESH_TOKEN] = refreshToken
            }
        }

        func clear() async {
            await prefs.edit { $0.removeAll() }
        }

        // companion object
        private static let KEY_ACCESS_TOKEN = "access_token"
        private static let KEY_REFRESH_TOKEN = "refresh_token"
    }
}
