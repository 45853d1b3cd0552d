import Foundation

/// Receives SessionKit's log records. Records name transitions and failure classes, never a token.
public protocol LogSink: Sendable {
    func log(_ record: LogRecord)
}

/// Severity of a log record.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Codable {
    case debug, info, notice, warning, error
}

/// One structured log record: a stable event code plus string metadata.
public struct LogRecord: Sendable, Hashable, CustomStringConvertible {
    /// Device wall-clock time, for humans only.
    public var timestamp: Date
    /// How important the record is.
    public var level: LogLevel
    /// A stable dotted code, for example `session.transition` or `refresh.deferred`.
    public var event: String
    /// Identifiers, classes and counts; never a secret.
    public var metadata: [String: String]

    /// Creates a record.
    public init(timestamp: Date, level: LogLevel, event: String, metadata: [String: String] = [:]) {
        self.timestamp = timestamp
        self.level = level
        self.event = event
        self.metadata = metadata
    }

    public var description: String {
        let fields = metadata.keys.sorted().map { "\($0)=\(metadata[$0]!)" }
        return ([level.rawValue, event] + fields).joined(separator: " ")
    }
}
