import ConformanceProtocol
import Testing

/// In the style of swift-nio's decoder verifier: however a stream is cut into chunks (whole, byte by byte,
/// at seeded random points, as arrays or as non-contiguous sequences), the framer finds the same lines
/// and the same error.
@Suite("JSONLineFramer chunking")
struct JSONLineFramerChunkingTests {
    /// A stream and what framing it must give.
    struct Sample: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let maximumLineLength: Int
        let expected: FramingOutcome

        init(_ name: String, _ bytes: [UInt8], limit: Int = 64, lines: [String], error: FramingError? = nil) {
            self.name = name
            self.bytes = bytes
            self.maximumLineLength = limit
            self.expected = FramingOutcome(lines: lines, error: error)
        }

        var testDescription: String { name }
    }

    static let wellFormed: [Sample] = [
        Sample("LF lines", Array("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n".utf8), lines: ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]),
        Sample("CRLF and LF mixed", Array("one\r\ntwo\nthree\r\n".utf8), lines: ["one", "two", "three"]),
        Sample("empty lines between", Array("\n\r\nfirst\n\n\r\n\nsecond\n\n".utf8), lines: ["first", "second"]),
        Sample("a bare CR inside a line", Array("a\rb\n".utf8), lines: ["a\rb"]),
        Sample(
            "multi-byte characters",
            Array("{\"name\":\"Zoë\",\"sign\":\"€\"}\n😀🇫🇷\r\n中文\n".utf8),
            lines: ["{\"name\":\"Zoë\",\"sign\":\"€\"}", "😀🇫🇷", "中文"]
        ),
        Sample(
            "lines exactly at the limit, with LF and CRLF",
            Array((String(repeating: "x", count: 16) + "\n" + String(repeating: "y", count: 16) + "\r\n").utf8),
            limit: 16,
            lines: [String(repeating: "x", count: 16), String(repeating: "y", count: 16)]
        ),
        Sample("no input at all", [], lines: []),
        Sample("only line ends", Array("\n\n\r\n".utf8), lines: []),
    ]

    static let malformed: [Sample] = [
        Sample(
            "invalid UTF-8 after good lines",
            Array("ok\n\n".utf8) + [0x7B, 0xFF, 0xFE, 0x7D, 0x0A] + Array("never\n".utf8),
            lines: ["ok"],
            error: FramingError(.invalidUTF8, line: 3, byteCount: 4)
        ),
        Sample(
            "a UTF-16 surrogate encoded in UTF-8",
            Array("a\n".utf8) + [0xED, 0xA0, 0x80, 0x0A],
            lines: ["a"],
            error: FramingError(.invalidUTF8, line: 2, byteCount: 3)
        ),
        Sample(
            "a line over the limit after good lines",
            Array(("short\n" + String(repeating: "z", count: 40) + "\nafter\n").utf8),
            limit: 16,
            lines: ["short"],
            error: FramingError(.lineTooLong, line: 2, byteCount: 17, limit: 16)
        ),
        Sample(
            "a CR just past the limit that does not start CRLF",
            Array((String(repeating: "z", count: 16) + "\rz\n").utf8),
            limit: 16,
            lines: [],
            error: FramingError(.lineTooLong, line: 1, byteCount: 18, limit: 16)
        ),
        Sample(
            "a truncated last line",
            Array("one\ntwo\n{\"partial\":".utf8),
            lines: ["one", "two"],
            error: FramingError(.truncatedLine, line: 3, byteCount: 11)
        ),
    ]

    @Test("fed whole, byte by byte or split at random points, a stream gives the same lines", arguments: wellFormed)
    func wellFormedStreamsDoNotDependOnChunking(sample: Sample) {
        verifyChunkingIndependence(of: sample)
    }

    @Test("fed whole, byte by byte or split at random points, a broken stream gives the same lines and error", arguments: malformed)
    func malformedStreamsDoNotDependOnChunking(sample: Sample) {
        verifyChunkingIndependence(of: sample)
    }

    @Test("a large stream of random JSON-like lines frames the same under every seed")
    func largeRandomStreamDoesNotDependOnChunking() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        let alphabet = Array("abc{}[]\":,é€😀 ".unicodeScalars)
        var lines: [String] = []
        var bytes: [UInt8] = []
        for _ in 0..<300 {
            var line = ""
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                line.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
            }
            let terminator = Bool.random(using: &generator) ? "\n" : "\r\n"
            bytes += Array((line + terminator).utf8)
            if !line.isEmpty { lines.append(line) }
        }
        verifyChunkingIndependence(of: Sample("random lines", bytes, limit: 1024, lines: lines), seeds: 0..<50)
    }

    private func verifyChunkingIndependence(of sample: Sample, seeds: Range<UInt64> = 0..<200) {
        let limit = sample.maximumLineLength
        check(FramingOutcome.framing([sample.bytes], maximumLineLength: limit), against: sample, "fed whole")
        check(FramingOutcome.framing(sample.bytes.map { [$0] }, maximumLineLength: limit), against: sample, "fed byte by byte")
        check(
            FramingOutcome.framing([sample.bytes], maximumLineLength: limit, asNonContiguousSequences: true),
            against: sample, "fed as one non-contiguous sequence"
        )
        for seed in seeds {
            var generator = SplitMix64(seed: seed)
            let chunks = randomChunks(of: sample.bytes, using: &generator)
            let outcome = FramingOutcome.framing(chunks, maximumLineLength: limit, asNonContiguousSequences: seed % 2 == 1)
            check(outcome, against: sample, "split at random points with seed \(seed)")
        }
    }

    /// Records an issue naming the first difference, rather than printing both outcomes whole.
    private func check(_ outcome: FramingOutcome, against sample: Sample, _ how: String) {
        guard let difference = outcome.firstDifference(from: sample.expected) else { return }
        Issue.record("\(sample.name), \(how): \(difference)")
    }

    /// Cuts `bytes` at random points, with chunk sizes drawn up to a random bound, empty chunks included.
    private func randomChunks(of bytes: [UInt8], using generator: inout SplitMix64) -> [[UInt8]] {
        let largest = [1, 2, 3, 7, 64, max(bytes.count, 1)].randomElement(using: &generator)!
        var chunks: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let size = Int.random(in: 0...largest, using: &generator)
            let end = min(start + size, bytes.count)
            chunks.append(Array(bytes[start..<end]))
            start = end
        }
        return chunks
    }
}

/// What framing a stream gave: the lines, then the error that stopped it, if any.
struct FramingOutcome: Equatable, Sendable {
    var lines: [String]
    var error: FramingError?

    /// Where this outcome first differs from `expected`, or nil when they are equal.
    func firstDifference(from expected: FramingOutcome) -> String? {
        for (index, (line, expectedLine)) in zip(lines, expected.lines).enumerated() where line != expectedLine {
            return "line \(index + 1) of the output is \(line.debugDescription), expected \(expectedLine.debugDescription)"
        }
        if lines.count != expected.lines.count {
            return "\(lines.count) lines, expected \(expected.lines.count)"
        }
        if error != expected.error {
            return "error \(error.map { "\($0)" } ?? "none"), expected \(expected.error.map { "\($0)" } ?? "none")"
        }
        return nil
    }

    /// Feeds `chunks` one after the other, then finishes, stopping at the first error.
    static func framing(
        _ chunks: [[UInt8]], maximumLineLength: Int, asNonContiguousSequences: Bool = false
    ) -> FramingOutcome {
        var framer = JSONLineFramer(maximumLineLength: maximumLineLength)
        var outcome = FramingOutcome(lines: [], error: nil)
        do throws(FramingError) {
            for chunk in chunks {
                if asNonContiguousSequences {
                    outcome.lines += try framer.feed(chunk.lazy.map { $0 })
                } else {
                    outcome.lines += try framer.feed(chunk)
                }
            }
            try framer.finish()
        } catch {
            outcome.error = error
        }
        return outcome
    }
}

/// A tiny seeded generator (SplitMix64, Steele, Lea and Flood 2014), so random splits are reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
