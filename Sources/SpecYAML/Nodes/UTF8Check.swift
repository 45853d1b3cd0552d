/// Finds the first byte sequence that is not UTF-8, so the error can name its line and column.
/// libyaml would report it by byte offset only, and would accept UTF-16 with a byte order mark.
enum UTF8Check {
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func firstProblem(in bytes: [UInt8], source: SourceText) -> Diagnostic? {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            return .error("spec files must be UTF-8; this one starts with a UTF-16 byte order mark",
                          at: SourceLocation(file: source.file, line: 1, column: 1))
        }
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            if length == 0 {
                let byte = String(bytes[index], radix: 16, uppercase: true)
                return .error("invalid UTF-8 byte 0x\(byte.count == 1 ? "0" + byte : byte); spec files must be UTF-8",
                              at: source.location(ofByteOffset: index, in: bytes))
            }
            if length == 3, bytes[index] == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                return .error("a byte order mark (U+FEFF) is allowed only at the very start of a spec file",
                              at: source.location(ofByteOffset: index, in: bytes))
            }
            index += length
        }
        return nil
    }

    /// The length of the well-formed UTF-8 sequence at `index`, or 0 if it is ill-formed.
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        let secondRange: ClosedRange<UInt8>
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2; secondRange = 0x80...0xBF
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; secondRange = 0x80...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4; secondRange = 0x80...0xBF
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: return 0
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) {
            return 0
        }
        return length
    }
}
