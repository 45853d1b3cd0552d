import Foundation

/// Every token the auth server issued: its value, its handle (`at#2`, `rt#1`), its account and family.
/// Reports and traces show handles; token values never leave the runner.
public struct IssuedToken: Sendable, Hashable {
    public enum Kind: String, Sendable { case access = "at", refresh = "rt" }

    public let value: String
    public let kind: Kind
    public let number: Int
    public let account: String
    public let family: Int
    /// Server time of issue, and of expiry for access tokens.
    public let issuedAt: Double
    public let expiresAt: Double?

    public var handle: String { "\(kind.rawValue)#\(number)" }
}

public struct TokenVault: Sendable {
    private var random: SeededRandom
    private(set) var tokens: [IssuedToken] = []
    private var byValue: [String: Int] = [:]
    private var counters: [IssuedToken.Kind: Int] = [:]

    /// The shortest run of a token's characters that counts as leaking it.
    public static let fragmentLength = 8

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func issue(_ kind: IssuedToken.Kind, account: String, family: Int, at time: Double, lifetime: Double?) -> IssuedToken {
        counters[kind, default: 0] += 1
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let body = String((0..<28).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        let token = IssuedToken(
            value: "\(kind == .access ? "sat" : "srt")_\(body)", kind: kind, number: counters[kind]!, account: account,
            family: family, issuedAt: time, expiresAt: lifetime.map { time + $0 })
        byValue[token.value] = tokens.count
        tokens.append(token)
        return token
    }

    public func token(_ value: String) -> IssuedToken? {
        byValue[value].map { tokens[$0] }
    }

    /// The tokens whose value, or a fragment of it, occurs in `text`.
    public func leaked(in text: String) -> [IssuedToken] {
        guard text.count >= Self.fragmentLength else { return [] }
        return tokens.filter { token in
            let body = Array(token.value.dropFirst(4))
            guard body.count >= Self.fragmentLength else { return text.contains(token.value) }
            var start = 0
            while start + Self.fragmentLength <= body.count {
                if text.contains(String(body[start..<start + Self.fragmentLength])) { return true }
                start += 1
            }
            return false
        }
    }

    /// Every token value in `text` replaced by its handle.
    public func redact(_ text: String) -> String {
        guard text.contains("sat_") || text.contains("srt_") else { return text }
        var result = text
        for token in tokens where result.contains(token.value) {
            result = result.replacingOccurrences(of: token.value, with: token.handle)
        }
        return result
    }

    /// The tokens whose full value occurs in `text`.
    public func contained(in text: String) -> [IssuedToken] {
        guard text.contains("sat_") || text.contains("srt_") else { return [] }
        return tokens.filter { text.contains($0.value) }
    }
}
