/// The lines of a source file, kept to print the offending line under a diagnostic.
public struct SourceText: Sendable {
    public let file: String
    /// Each line without its terminator; bytes that are not UTF-8 appear as U+FFFD.
    public let lines: [String]
    private let lineStartOffsets: [Int]

    public init(file: String, bytes: [UInt8]) {
        self.file = file
        var lines: [String] = []
        var starts: [Int] = [0]
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                lines.append(String(decoding: bytes[lineStart..<index], as: UTF8.self))
                if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    index += 1
                }
                lineStart = index + 1
                starts.append(lineStart)
            }
            index += 1
        }
        lines.append(String(decoding: bytes[lineStart..<bytes.count], as: UTF8.self))
        self.lines = lines
        self.lineStartOffsets = starts
    }

    public init(file: String, text: String) {
        self.init(file: file, bytes: Array(text.utf8))
    }

    /// The 1-based line, or nil past the end.
    public func line(_ number: Int) -> String? {
        guard number >= 1, number <= lines.count else { return nil }
        return lines[number - 1]
    }

    /// The location of a byte offset, for errors that libyaml reports by offset only.
    public func location(ofByteOffset offset: Int, in bytes: [UInt8]) -> SourceLocation {
        var low = 0
        var high = lineStartOffsets.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStartOffsets[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let start = lineStartOffsets[low]
        let prefix = bytes[start..<min(max(offset, start), bytes.count)]
        let column = String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1
        return SourceLocation(file: file, line: low + 1, column: column)
    }
}
