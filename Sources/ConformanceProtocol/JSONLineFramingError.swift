/// Why a byte stream could not be cut into JSON lines.
///
/// Line numbers are 1-based and count every terminated line of the stream, empty ones included, so they
/// match what an editor shows for a capture of the stream.
public struct FramingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A line is longer than the maximum line length. Reported as soon as the limit is crossed.
        case lineTooLong
        /// A complete line is not valid UTF-8.
        case invalidUTF8
        /// The stream ended inside a line: the last line has no terminator.
        case truncatedLine
    }

    public let code: Code
    /// The 1-based number of the offending line.
    public let line: Int
    /// How many bytes of the line had been read. For `lineTooLong`, the bytes read when the line became
    /// too long: `limit + 1`, or `limit + 2` when the byte past the limit is a `\r` (it might have started
    /// the terminator); the line may be longer. For the other codes, the whole line without terminator.
    public let byteCount: Int
    /// The maximum line length in force, for `lineTooLong`; nil for the other codes.
    public let limit: Int?

    public init(_ code: Code, line: Int, byteCount: Int, limit: Int? = nil) {
        self.code = code
        self.line = line
        self.byteCount = byteCount
        self.limit = limit
    }

    public var description: String {
        switch code {
        case .lineTooLong:
            let limitText = limit.map { "\($0)" } ?? "the limit"
            return "line \(line) is too long: more than the maximum of \(limitText) bytes "
                + "(\(byteCount) bytes read without a line end)"
        case .invalidUTF8:
            return "line \(line) is not valid UTF-8 (\(byteCount) bytes)"
        case .truncatedLine:
            return "the stream ended inside line \(line): \(byteCount) bytes without a line end"
        }
    }
}
