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
    public internal(set) var expiresAt: Double?

    public var handle: String { "\(kind.rawValue)#\(number)" }
}

public struct TokenVault: Sendable {
    private var random: SeededRandom
    public private(set) var tokens: [IssuedToken] = []
    private var byValue: [String: Int] = [:]
    private var counters: [IssuedToken.Kind: Int] = [:]
    /// Every run of `fragmentLength` bytes of every token (tokens are ASCII), packed into one integer, to
    /// find fragments in a single pass over a text's bytes.
    private var grams: [UInt64: Set<Int>] = [:]

    /// The shortest run of a token's characters that counts as leaking it.
    /// (Eight: one `UInt64` holds the window `leaked(in:)` rolls over a text.)
    public static let fragmentLength = 8

    public init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func issue(_ kind: IssuedToken.Kind, account: String, family: Int, at time: Double, lifetime: Double?) -> IssuedToken {
        counters[kind, default: 0] += 1
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let body = String((0..<28).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        let token = IssuedToken(
            value: "\(kind == .access ? "sat" : "srt")_\(body)", kind: kind, number: counters[kind]!, account: account,
            family: family, issuedAt: time, expiresAt: lifetime.map { time + $0 })
        byValue[token.value] = tokens.count
        for form in [body] + Self.encodedForms(of: token.value) {
            let bytes = Array(form.utf8)
            guard bytes.count >= Self.fragmentLength else { continue }
            for start in 0...(bytes.count - Self.fragmentLength) {
                grams[Self.pack(bytes[start..<start + Self.fragmentLength]), default: []].insert(tokens.count)
            }
        }
        tokens.append(token)
        return token
    }

    /// Every access token issued so far (before `cutoff`, when given) expires at `time` at the latest.
    mutating func expireAccessTokens(at time: Double, issuedBefore cutoff: Double = .infinity) {
        for index in tokens.indices where tokens[index].kind == .access && tokens[index].issuedAt < cutoff {
            tokens[index].expiresAt = min(tokens[index].expiresAt ?? time, time)
        }
    }

    public func token(_ value: String) -> IssuedToken? {
        byValue[value].map { tokens[$0] }
    }

    /// The tokens whose value, or a fragment of at least `fragmentLength` characters of it or of one of its
    /// `encodedForms`, occurs in `text`.
    public func leaked(in text: String) -> [IssuedToken] {
        guard !grams.isEmpty else { return [] }
        var found: Set<Int> = []
        var window: UInt64 = 0
        var filled = 0
        for byte in text.utf8 {
            window = (window << 8) | UInt64(byte)
            filled += 1
            if filled >= Self.fragmentLength, let owners = grams[window] { found.formUnion(owners) }
        }
        return found.sorted().map { tokens[$0] }
    }

    /// A secret as a client might encode it before it leaks: base64 and base64url (at each of the three
    /// alignments it can have inside a longer encoded text, without the characters that depend on what
    /// surrounds it), and hex in both cases. Percent-encoding leaves a token's characters as they are.
    public static func encodedForms(of secret: String) -> [String] {
        var forms: [String] = []
        for shift in 0..<3 {
            let data = Data(repeating: 0x20, count: shift) + Data(secret.utf8)
            let base64 = data.base64EncodedString()
            let inner = String(base64.dropFirst(shift == 0 ? 0 : 4).dropLast(4))
            forms.append(inner)
            forms.append(inner.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        let hex = secret.utf8.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
        forms.append(hex)
        forms.append(hex.uppercased())
        return forms
    }

    /// Eight bytes as one integer, the first byte highest, as `leaked(in:)` rolls its window.
    private static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    /// Every token value in `text` replaced by its handle, and every fragment of one by `<at#2 fragment>`.
    public func redact(_ text: String) -> String {
        var result = text
        if result.contains("sat_") || result.contains("srt_") {
            for token in tokens where result.contains(token.value) {
                result = result.replacingOccurrences(of: token.value, with: token.handle)
            }
        }
        for token in leaked(in: result) {
            for form in Self.encodedForms(of: token.value) where result.contains(form) {
                result = result.replacingOccurrences(of: form, with: "<\(token.handle) encoded>")
            }
            result = Self.redactFragments(of: token, in: result)
        }
        return result
    }

    /// Replaces each maximal run of `text` that is also a run of the token by a marker.
    private static func redactFragments(of token: IssuedToken, in text: String) -> String {
        let secret = Array(token.value)
        let characters = Array(text)
        var output = ""
        var index = 0
        while index < characters.count {
            var longest = 0
            for start in secret.indices {
                var length = 0
                while index + length < characters.count, start + length < secret.count,
                      characters[index + length] == secret[start + length] {
                    length += 1
                }
                longest = max(longest, length)
            }
            if longest >= fragmentLength {
                output += "<\(token.handle) fragment>"
                index += longest
            } else {
                output.append(characters[index])
                index += 1
            }
        }
        return output
    }

    /// The tokens whose full value occurs in `text`.
    public func contained(in text: String) -> [IssuedToken] {
        guard text.contains("sat_") || text.contains("srt_") else { return [] }
        return tokens.filter { text.contains($0.value) }
    }
}
