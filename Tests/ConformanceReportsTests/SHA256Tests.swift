@testable import ConformanceReports
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("matches the FIPS 180-4 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA256.hex(Array(input.utf8)) == expected)
    }

    @Test("a million 'a's, fed in uneven chunks, match the long vector")
    func millionA() {
        var hasher = SHA256()
        var remaining = 1_000_000
        var chunk = 1
        while remaining > 0 {
            let size = min(chunk, remaining)
            hasher.update(repeatElement(UInt8(ascii: "a"), count: size))
            remaining -= size
            chunk = chunk * 3 % 1_013 + 1
        }
        let hex = hasher.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("inputs around the padding boundary (55, 56, 63, 64 bytes) hash like one-shot updates split anywhere")
    func paddingBoundaries() {
        for length in [55, 56, 57, 63, 64, 65, 119, 120] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let whole = SHA256.hash(bytes)
            for split in [0, 1, length / 2, length] {
                var hasher = SHA256()
                hasher.update(bytes[..<split])
                hasher.update(bytes[split...])
                #expect(hasher.finalize() == whole, "length \(length) split at \(split)")
            }
        }
    }
}
