import AdapterKit
import ConformanceProtocol

// A port of the iOS token store of Specs/sources/003_a7334a1b43f9a998.txt ("iOS - Keychain"), kept as close
// as Swift on this host allows. The Keychain is the runner's secure storage: SecItemCopyMatching,
// SecItemDelete and SecItemAdd become storage effects, which suspend; the original calls are synchronous.

/// The iOS port's types, kept apart from the Android and Flutter ports' namesakes.
public enum NaiveIOS {}

extension NaiveIOS {
    struct TokenPair: Sendable {
        let accessToken: String
        let refreshToken: String
    }

    protocol TokenStore: Sendable {
        // Adapted: `{ get async }` and `async` methods, because every Keychain call is an effect here.
        var accessToken: String? { get async }
        var refreshToken: String? { get async }
        func save(_ pair: TokenPair) async
        func clear() async
    }

    final class KeychainTokenStore: TokenStore {
        private let accessTokenKey = "access_token"
        private let refreshTokenKey = "refresh_token"
        private let keychain: ClientEffects

        init(keychain: ClientEffects) {
            self.keychain = keychain
        }

        var accessToken: String? {
            get async { await read(key: accessTokenKey) }
        }

        var refreshToken: String? {
            get async { await read(key: refreshTokenKey) }
        }

        func save(_ pair: TokenPair) async {
            await write(key: accessTokenKey, value: pair.accessToken)
            await write(key: refreshTokenKey, value: pair.refreshToken)
        }

        func clear() async {
            await delete(key: accessTokenKey)
            await delete(key: refreshTokenKey)
        }

        private func write(key: String, value: String) async {
            // let query: [String: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: key, kSecValueData: ...]
            // The query sets no kSecAttrAccessible, so the item gets the Keychain default: kSecAttrAccessibleWhenUnlocked.
            _ = await keychain.secureDelete(key) // SecItemDelete(query as CFDictionary)
            _ = await keychain.secureSet(key, value, accessibility: .whenUnlocked) // SecItemAdd(query as CFDictionary, nil)
        }

        private func read(key: String) async -> String? {
            // guard status == errSecSuccess, ... else { return nil }: every failure, errSecInteractionNotAllowed on a
            // locked device included, reads as "no value".
            guard case .success(let value?) = await keychain.secureGet(key) else {
                return nil
            }
            return value
        }

        private func delete(key: String) async {
            _ = await keychain.secureDelete(key) // SecItemDelete(query as CFDictionary)
        }
    }
}
