import AdapterKit
import ConformanceProtocol
import Foundation

// A port of "Flutter - Secure Storage" of Specs/sources/003_a7334a1b43f9a998.txt, kept as close as Swift on this
// host allows. flutter_secure_storage is the runner's secure storage; its default iOS accessibility is
// `KeychainAccessibility.unlocked` (when unlocked). Dart runs on one isolate: here every task of the client
// runs on one serial executor, and a lock guards the cached tokens (never held across an await).

/// The Flutter port's types, kept apart from the iOS and Android ports' namesakes.
public enum NaiveFlutter {}

extension NaiveFlutter {
    struct TokenPair: Sendable {
        let accessToken: String
        let refreshToken: String
    }

    /// flutter_secure_storage's FlutterSecureStorage.
    struct FlutterSecureStorage: Sendable {
        let channel: ClientEffects

        /// Adapted: the plugin throws a PlatformException when the item cannot be read (a locked device); the
        /// port reads that as no value, so the app still starts (an exception in main() would stop it).
        func read(key: String) async -> String? {
            guard case .success(let value?) = await channel.secureGet(key) else { return nil }
            return value
        }

        func write(key: String, value: String) async {
            _ = await channel.secureSet(key, value, accessibility: .whenUnlocked)
        }

        func delete(key: String) async {
            _ = await channel.secureDelete(key)
        }
    }

    // lib/core/network/token_store/secure_token_store.dart
    protocol TokenStore: Sendable {
        var accessToken: String? { get }
        var refreshToken: String? { get }
        func save(_ pair: TokenPair) async
        func clear() async
    }

    final class SecureTokenStore: TokenStore, @unchecked Sendable {
        // @unchecked: the cached tokens are only touched with `lock` held.
        private let _storage: FlutterSecureStorage
        private let lock = NSLock()

        private static let _accessTokenKey = "access_token"
        private static let _refreshTokenKey = "refresh_token"

        private var _cachedAccessToken: String?
        private var _cachedRefreshToken: String?

        init(_ storage: FlutterSecureStorage) {
            _storage = storage
        }

        // Call initialize() once at app startup (e.g., in main) before reading cached tokens.
        func initialize() async {
            let access = await _storage.read(key: Self._accessTokenKey)
            let refresh = await _storage.read(key: Self._refreshTokenKey)
            lock.withLock {
                _cachedAccessToken = access
                _cachedRefreshToken = refresh
            }
        }

        var accessToken: String? { lock.withLock { _cachedAccessToken } }

        var refreshToken: String? { lock.withLock { _cachedRefreshToken } }

        func save(_ pair: TokenPair) async {
            // await Future.wait([write(access), write(refresh)]): two items, written in parallel.
            async let access: Void = _storage.write(key: Self._accessTokenKey, value: pair.accessToken)
            async let refresh: Void = _storage.write(key: Self._refreshTokenKey, value: pair.refreshToken)
            _ = await (access, refresh)

            lock.withLock {
                _cachedAccessToken = pair.accessToken
                _cachedRefreshToken = pair.refreshToken
            }
        }

        func clear() async {
            async let access: Void = _storage.delete(key: Self._accessTokenKey)
            async let refresh: Void = _storage.delete(key: Self._refreshTokenKey)
            _ = await (access, refresh)

            lock.withLock {
                _cachedAccessToken = nil
                _cachedRefreshToken = nil
            }
        }
    }
}
