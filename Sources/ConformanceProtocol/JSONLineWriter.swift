/// Frames one line of the JSON Lines framing for writing: the line's UTF-8 bytes and a `\n`.
public enum JSONLineWriter {
    /// The bytes to write for `line`: its UTF-8 followed by `\n`.
    ///
    /// - Parameter maximumLineLength: the most bytes the line may have, without its terminator.
    /// - Throws: `containsLineBreak` when the line holds a `\n` or `\r` (a reader would cut it or drop
    ///   the `\r`), `lineTooLong` past the limit.
    public static func frame(
        _ line: String,
        maximumLineLength: Int = JSONLineFramer.defaultMaximumLineLength
    ) throws(JSONLineWriteError) -> [UInt8] {
        var bytes = Array(line.utf8)
        if let offset = bytes.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            throw JSONLineWriteError(.containsLineBreak, byteCount: bytes.count, byteOffset: offset)
        }
        if bytes.count > maximumLineLength {
            throw JSONLineWriteError(.lineTooLong, byteCount: bytes.count, limit: maximumLineLength)
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// Why a line cannot be framed for writing.
public struct JSONLineWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The line holds a `\n` or `\r`.
        case containsLineBreak
        /// The line is longer than the maximum line length.
        case lineTooLong
    }

    public let code: Code
    /// The line's length in UTF-8 bytes.
    public let byteCount: Int
    /// For `containsLineBreak`, the offset of the first line break in the line's UTF-8.
    public let byteOffset: Int?
    /// For `lineTooLong`, the maximum line length in force.
    public let limit: Int?

    public init(_ code: Code, byteCount: Int, byteOffset: Int? = nil, limit: Int? = nil) {
        self.code = code
        self.byteCount = byteCount
        self.byteOffset = byteOffset
        self.limit = limit
    }

    public var description: String {
        switch code {
        case .containsLineBreak:
            let offsetText = byteOffset.map { " at byte \($0)" } ?? ""
            return "a line to send contains a line break\(offsetText); JSON lines must be on one line"
        case .lineTooLong:
            let limitText = limit.map { "\($0)" } ?? "the limit"
            return "a line to send is \(byteCount) bytes, more than the maximum of \(limitText) bytes"
        }
    }
}
