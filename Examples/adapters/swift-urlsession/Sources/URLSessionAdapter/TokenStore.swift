import Foundation

/// The Keychain item holding the pair, as one JSON document, readable after first unlock (for background
/// refresh). Each operation is a `storage` effect the runner answers.
@ClientActor enum TokenStore {
    static let key = "auth.tokens"

    static func read() async throws -> Tokens? {
        switch await Host.shared.effect({ .storage(id: $0, operation: .get, key: key, value: nil, accessibility: nil) }) {
        case .value(let text?)?: return try JSONDecoder().decode(Tokens.self, from: Data(text.utf8))
        case .value(nil)?: return nil
        default: throw AppError(code: "storageUnavailable", message: "secure storage is locked")
        }
    }

    static func write(_ tokens: Tokens) async throws {
        let text = String(decoding: try JSONEncoder().encode(tokens), as: UTF8.self)
        let reply = await Host.shared.effect { .storage(id: $0, operation: .set, key: key, value: text, accessibility: .afterFirstUnlock) }
        if case .error? = reply { throw AppError(code: "storageUnavailable", message: "secure storage is locked") }
    }

    static func clear() async {
        _ = await Host.shared.effect { .storage(id: $0, operation: .delete, key: key, value: nil, accessibility: nil) }
    }
}
