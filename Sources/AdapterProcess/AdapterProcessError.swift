#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the adapter process could not be started or written to.
public struct AdapterProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The process could not be started (`pipe` or `posix_spawn` failed).
        case spawnFailed
        /// The line to send cannot be framed: it contains a line break or is over the limit.
        case invalidLine
        /// stdin was closed by ``AdapterProcess/closeInput()`` or ``AdapterProcess/terminate(grace:)``.
        case inputClosed
        /// The adapter no longer reads stdin: it closed it or ended.
        case brokenPipe
        /// The adapter did not read the line within the timeout. Part of it may have been written, so
        /// stdin is unusable from then on.
        case sendTimedOut
        /// Writing to stdin failed for another reason.
        case writeFailed
    }

    public let code: Code
    /// The system error (`errno`), where one applies.
    public let systemError: Int32?
    /// What was being done: the command line, the framing problem, the bytes written.
    public let detail: String

    public init(_ code: Code, systemError: Int32? = nil, detail: String) {
        self.code = code
        self.systemError = systemError
        self.detail = detail
    }

    public var description: String {
        let summary = switch code {
        case .spawnFailed: "could not start the adapter"
        case .invalidLine: "cannot send the line"
        case .inputClosed: "the adapter's stdin is closed"
        case .brokenPipe: "the adapter no longer reads its stdin (it closed it or ended)"
        case .sendTimedOut: "the adapter did not read its stdin in time"
        case .writeFailed: "writing to the adapter's stdin failed"
        }
        let systemText = systemError.map { ": \(String(cString: strerror($0))) (errno \($0))" } ?? ""
        return "\(summary)\(systemText); \(detail)"
    }
}
