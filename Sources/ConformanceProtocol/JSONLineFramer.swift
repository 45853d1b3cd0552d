#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into the lines of the JSON Lines framing (docs/adapter-protocol.md, "Framing").
///
/// Feed bytes as they arrive, in chunks of any size; each call returns the lines that became complete.
/// A line ends at `\n`; a `\r` right before it is dropped too, so `\r\n` works. Empty lines are skipped.
/// At the end of the stream call ``finish()``: a last line without a terminator is an error.
///
/// The framer never holds more than one line (at most `maximumLineLength + 1` bytes): a line is checked
/// against the limit as its bytes arrive, not when it ends.
///
/// The first error breaks the stream for good. Lines completed before it are never lost, whatever the
/// chunking: when the chunk that holds the error also completes earlier lines, ``feed(_:)`` returns those
/// lines and sets ``failure``; the next ``feed(_:)`` or ``finish()`` throws it. When there are no such
/// lines, ``feed(_:)`` throws at once. Every call after that throws the same error again.
public struct JSONLineFramer: Sendable {
    /// 1 MiB, the protocol's limit on a line.
    public static let defaultMaximumLineLength = 1 << 20

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The most bytes a line may have, without its terminator.
    public let maximumLineLength: Int

    /// The bytes of the line being read.
    private var pending: [UInt8] = []
    /// The 1-based number of the line being read.
    private var lineNumber = 1
    /// The error that broke the stream, if any. Set as soon as it is found, even when ``feed(_:)``
    /// returned lines instead of throwing.
    public private(set) var failure: FramingError?

    /// - Parameter maximumLineLength: the most bytes a line may have, without its terminator; at least 1.
    public init(maximumLineLength: Int = JSONLineFramer.defaultMaximumLineLength) {
        precondition(maximumLineLength >= 1, "a line must be allowed at least one byte")
        self.maximumLineLength = maximumLineLength
    }

    /// Adds bytes of the stream and returns the non-empty lines they complete, in order, without their
    /// terminators.
    ///
    /// - Throws: `lineTooLong` once the line being read is longer than the limit, `invalidUTF8` when a
    ///   completed line is not UTF-8; see the type's documentation for lines completed before the error.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(FramingError) -> [String] {
        if let failure { throw failure }
        let (lines, error) = bytes.withContiguousStorageIfAvailable { consume($0) }
            ?? Array(bytes).withUnsafeBufferPointer { consume($0) }
        if let error {
            failure = error
            if lines.isEmpty { throw error }
        }
        return lines
    }

    /// Declares the end of the stream.
    ///
    /// - Throws: `truncatedLine` when bytes of an unterminated line are pending, or the error that broke
    ///   the stream earlier.
    public func finish() throws(FramingError) {
        if let failure { throw failure }
        if !pending.isEmpty {
            throw FramingError(.truncatedLine, line: lineNumber, byteCount: pending.count)
        }
    }

    /// Frames `chunk`: the lines it completes and the error that stopped it, if any.
    private mutating func consume(_ chunk: UnsafeBufferPointer<UInt8>) -> (lines: [String], error: FramingError?) {
        var lines: [String] = []
        var start = chunk.startIndex
        do {
            while start < chunk.endIndex {
                guard let lineEnd = Self.indexOfLineFeed(in: chunk, from: start) else {
                    try appendPartial(UnsafeBufferPointer(rebasing: chunk[start...]))
                    break
                }
                if let line = try completeLine(ending: UnsafeBufferPointer(rebasing: chunk[start..<lineEnd])) {
                    lines.append(line)
                }
                start = lineEnd + 1
            }
        } catch {
            return (lines, error)
        }
        return (lines, nil)
    }

    /// The index of the first `\n` in `chunk` at or after `start` (memchr: fast even in debug builds).
    private static func indexOfLineFeed(in chunk: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = chunk.baseAddress, start < chunk.count,
              let found = memchr(base + start, Int32(lineFeed), chunk.count - start)
        else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// Buffers bytes of a line whose end has not arrived, checking the limit first. One byte past the
    /// limit is allowed when it is a `\r`, which may be the start of a `\r\n` terminator.
    private mutating func appendPartial(_ piece: UnsafeBufferPointer<UInt8>) throws(FramingError) {
        let length = pending.count + piece.count
        let mayEndWithTerminator = length == maximumLineLength + 1 && piece.last == Self.carriageReturn
        if length > maximumLineLength && !mayEndWithTerminator {
            throw tooLong(pendingAndThen: piece)
        }
        pending.append(contentsOf: piece)
    }

    /// Ends the pending line with `piece`, the bytes before its `\n`. Returns nil for an empty line.
    private mutating func completeLine(ending piece: UnsafeBufferPointer<UInt8>) throws(FramingError) -> String? {
        var length = pending.count + piece.count
        let endsWithCarriageReturn = piece.last.map { $0 == Self.carriageReturn }
            ?? (pending.last == Self.carriageReturn)
        if endsWithCarriageReturn { length -= 1 }
        if length > maximumLineLength {
            throw tooLong(pendingAndThen: piece)
        }
        pending.append(contentsOf: piece)
        if endsWithCarriageReturn { pending.removeLast() }
        defer {
            pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
            lineNumber += 1
        }
        if pending.isEmpty { return nil }
        guard let line = Self.decodeUTF8(pending) else {
            throw FramingError(.invalidUTF8, line: lineNumber, byteCount: pending.count)
        }
        return line
    }

    /// The error for a line, `pending` followed by `piece`, that is longer than the limit. It reports the
    /// bytes read when the line became too long, as if fed byte by byte, so that it does not depend on
    /// the chunking: the byte past the limit, or the one after it when that byte is a `\r`.
    private func tooLong(pendingAndThen piece: UnsafeBufferPointer<UInt8>) -> FramingError {
        let firstByteOverLimit = maximumLineLength < pending.count
            ? pending[maximumLineLength]
            : piece[maximumLineLength - pending.count]
        let byteCount = firstByteOverLimit == Self.carriageReturn ? maximumLineLength + 2 : maximumLineLength + 1
        return FramingError(.lineTooLong, line: lineNumber, byteCount: byteCount, limit: maximumLineLength)
    }

    /// The line as a String, or nil when it is not valid UTF-8 (no replacement characters).
    private static func decodeUTF8(_ bytes: [UInt8]) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }
}
