import ConformanceReports
import Foundation

/// Where a command writes. The CLI passes the process's streams; tests pass a buffer.
public protocol Console: Sendable {
    func out(_ text: String)
    func err(_ text: String)
    /// Writes a report to standard output (`--report FORMAT=-`), throwing when a write fails.
    func outReport(_ text: String) throws
    /// Whether standard error is a terminal, for the live progress line.
    var isTerminal: Bool { get }
    /// Whether to colour what is written: on a terminal, unless NO_COLOR is set.
    var colors: Bool { get }
}

extension Console {
    public var colors: Bool { ConsoleStyle.colorsWanted(isTerminal: isTerminal, environment: ProcessInfo.processInfo.environment) }

    public func outReport(_ text: String) throws { out(text) }
}

/// The process's standard output, for a report: every write checked.
public enum StandardOutput {
    public static func write(_ text: String) throws {
        if let problem = ReportFile.writeAll(Array(text.utf8), to: STDOUT_FILENO) {
            throw ReportFile.Error(path: "standard output", reason: problem, reading: false)
        }
    }
}

/// The console of a command whose standard output carries a report: what it would print there (the summary)
/// goes to standard error instead, so standard output is the report alone.
struct ReportOnStandardOutputConsole: Console {
    let base: any Console

    func out(_ text: String) { base.err(text) }
    func err(_ text: String) { base.err(text) }
    func outReport(_ text: String) throws { try base.outReport(text) }
    var isTerminal: Bool { base.isTerminal }
    var colors: Bool { base.colors }

    /// `console`, or, when one of the files written goes to standard output (`-` or `/dev/stdout`), the
    /// console that keeps standard output for it. Two files for standard output are a usage error.
    static func `for`(_ paths: [String], _ console: any Console) throws -> any Console {
        switch paths.filter(ReportFile.isStandardOutput).count {
        case 0: return console
        case 1: return ReportOnStandardOutputConsole(base: console)
        default: throw UsageError("two files would be written to standard output", hint: "give each its own path")
        }
    }
}
