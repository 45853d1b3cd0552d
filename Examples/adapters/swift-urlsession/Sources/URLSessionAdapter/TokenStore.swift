import AdapterKit
import Foundation

/// The Keychain item holding the pair, as one JSON document, readable after first unlock (for background
/// refresh). Each operation is a `storage` effect the runner answers.
struct TokenStore: Sendable {
    static let key = "auth.tokens"
    let effects: ClientEffects

    func read() async throws -> Tokens? {
        switch await effects.secureGet(Self.key) {
        case .success(let text?): return try JSONDecoder().decode(Tokens.self, from: Data(text.utf8))
        case .success(nil): return nil
        case .failure: throw AppError(code: "storageUnavailable", message: "secure storage is locked")
        }
    }

    func write(_ tokens: Tokens) async throws {
        let text = String(decoding: try JSONEncoder().encode(tokens), as: UTF8.self)
        if case .failure = await effects.secureSet(Self.key, text, accessibility: .afterFirstUnlock) {
            throw AppError(code: "storageUnavailable", message: "secure storage is locked")
        }
    }

    func clear() async {
        _ = await effects.secureDelete(Self.key)
    }
}
