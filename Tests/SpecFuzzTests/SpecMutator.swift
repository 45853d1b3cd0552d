/// A seeded mutator of spec files: byte, line and structure edits aimed at the places parsers break
/// (nesting, keys, numbers, encodings). The same seed always gives the same mutants.
struct SpecMutator {
    /// SplitMix64: small, fast, and the same on every platform.
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }

    private static let tokens: [[UInt8]] = [
        "[", "]", "{", "}", "- ", ": ", "? ", "&a ", "*a", "!!str ", "\t", "\n", "\"", "'", "#", "|", ">", ",",
        "---\n", "...\n", "~", "null", "true", "-1", "0", "1e300", "-1e20", "99999999999999999999", "9223372036854775807",
        "1e999", ".nan", "0x1F", "kind: ", "cases", "steps", "count: ", "seconds: ", "\u{FEFF}", "é", "\u{0}", "\r",
    ].map { Array($0.utf8) } + [[0xFF], [0xC0, 0x80], [0xEF, 0xBB, 0xBF], [0xED, 0xA0, 0x80]]

    /// One to four edits of `bytes`.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for _ in 0...below(4) { result = edit(result) }
        return result
    }

    private mutating func edit(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let at = below(bytes.count + 1)
        switch below(10) {
        case 0 where !bytes.isEmpty:  // flip a bit
            bytes[min(at, bytes.count - 1)] ^= UInt8(1) << UInt8(below(8))
        case 1:  // insert a token
            bytes.insert(contentsOf: Self.tokens[below(Self.tokens.count)], at: at)
        case 2 where !bytes.isEmpty:  // delete a range
            let end = min(bytes.count, at + 1 + below(64))
            bytes.removeSubrange(min(at, bytes.count - 1)..<end)
        case 3:  // duplicate a line, sometimes many times
            var lines = split(bytes)
            guard !lines.isEmpty else { break }
            let index = below(lines.count)
            let copies = below(4) == 0 ? 1 + below(2_000) : 1
            lines.insert(contentsOf: Array(repeating: lines[index], count: copies), at: index)
            bytes = join(lines)
        case 4:  // swap two lines
            var lines = split(bytes)
            guard lines.count > 1 else { break }
            lines.swapAt(below(lines.count), below(lines.count))
            bytes = join(lines)
        case 5:  // deep nesting
            let open = [UInt8]("[{?-".utf8)[below(4)]
            let depth = 1 + below(3_000)
            var chunk = [UInt8]()
            for _ in 0..<depth { chunk += open == UInt8(ascii: "{") ? Array("{a: ".utf8) : [open, UInt8(ascii: " ")] }
            bytes.insert(contentsOf: chunk, at: at)
        case 6:  // replace a number with an extreme one
            guard let digit = bytes.indices.dropFirst(at).first(where: { (48...57).contains(bytes[$0]) }) else { break }
            var end = digit
            while end < bytes.count, (48...57).contains(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
            let extremes = ["1e300", "-1e20", "99999999999999999999", "9223372036854775807", "-1", "0", "100000000", "1e-300"]
            bytes.replaceSubrange(digit..<end, with: Array(extremes[below(extremes.count)].utf8))
        case 7:  // repeat a chunk
            let length = 1 + below(32)
            let start = min(at, max(0, bytes.count - length))
            let chunk = Array(bytes[start..<min(bytes.count, start + length)])
            for _ in 0..<(1 + below(200)) { bytes.insert(contentsOf: chunk, at: start) }
        case 8:  // change indentation of a line
            var lines = split(bytes)
            guard !lines.isEmpty else { break }
            let index = below(lines.count)
            if below(2) == 0 { lines[index].insert(contentsOf: Array(repeating: UInt8(ascii: " "), count: 1 + below(8)), at: 0) }
            else { lines[index].removeFirst(min(lines[index].count, 1 + below(4))) }
            bytes = join(lines)
        default:  // truncate
            bytes.removeSubrange(min(at, bytes.count)...)
        }
        return bytes
    }

    private func split(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    }

    private func join(_ lines: [[UInt8]]) -> [UInt8] {
        Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }
}
