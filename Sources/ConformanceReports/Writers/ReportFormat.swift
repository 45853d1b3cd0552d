import Foundation
import SpecModel

/// The report formats, and `--report FORMAT[=PATH]` requests.
public enum ReportFormat: String, Sendable, CaseIterable {
    case json, junit, markdown, html, tap, badge

    /// Where a report goes when `--report FORMAT` names no path.
    public var defaultPath: String {
        let fileExtension = switch self {
        case .json: "json"
        case .junit: "junit.xml"
        case .markdown: "md"
        case .html: "html"
        case .tap: "tap"
        case .badge: "svg"
        }
        return "session-conformance-report.\(fileExtension)"
    }

    public func render(_ report: ComplianceReport) -> String {
        switch self {
        case .json: JSONReportWriter.render(report)
        case .junit: JUnitReportWriter.render(report)
        case .markdown: MarkdownReportWriter.render(report)
        case .html: HTMLReportWriter.render(report)
        case .tap: TAPReportWriter.render(report)
        case .badge: BadgeWriter.render(report)
        }
    }
}

/// One `--report FORMAT[=PATH]`.
public struct ReportRequest: Sendable, Equatable {
    public let format: ReportFormat
    public let path: String

    public init(format: ReportFormat, path: String) {
        self.format = format
        self.path = path
    }

    public struct ParseError: Error, Sendable, Equatable {
        public let message: String
        public let hint: String?
    }

    /// Parses `json`, `junit=out/report.xml`, ...
    public static func parse(_ text: String) throws(ParseError) -> ReportRequest {
        let name = String(text.prefix { $0 != "=" })
        guard let format = ReportFormat(rawValue: name.lowercased()) else {
            let known = ReportFormat.allCases.map(\.rawValue)
            let close = Suggestion.closest(to: name, among: known)
            throw ParseError(message: "unknown report format '\(name)'",
                             hint: (close.map { "did you mean '\($0)'? " } ?? "") + "formats: \(known.joined(separator: ", "))")
        }
        guard text.contains("=") else { return ReportRequest(format: format, path: format.defaultPath) }
        let path = String(text.drop { $0 != "=" }.dropFirst())
        guard !path.isEmpty else { throw ParseError(message: "--report \(name)= needs a path after '='", hint: nil) }
        return ReportRequest(format: format, path: path)
    }

    /// Whether the report goes to standard output (`-` or `/dev/stdout`): written there by the command, not
    /// through a file.
    public var toStandardOutput: Bool { ReportFile.isStandardOutput(path) }

    /// Parses every request; two requests for the same path (or both for standard output) are an error.
    public static func parseAll(_ texts: [String]) throws(ParseError) -> [ReportRequest] {
        var requests: [ReportRequest] = []
        for text in texts {
            let request = try parse(text)
            if request.toStandardOutput, requests.contains(where: \.toStandardOutput) {
                throw ParseError(message: "two reports would be written to standard output", hint: "give each --report its own path")
            }
            if requests.contains(where: { $0.path == request.path }) {
                throw ParseError(message: "two reports would be written to \(request.path)", hint: "give each --report its own path")
            }
            requests.append(request)
        }
        return requests
    }

    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Writes the report to its file, creating the folder if needed: a regular file only, never a device, FIFO,
    /// socket or folder; through a symbolic link to the regular file it names (``ReportFile``).
    public func write(_ report: ComplianceReport) throws(WriteError) {
        do {
            try ReportFile.write(format.render(report), to: path)
        } catch {
            throw WriteError(description: "cannot write the \(format.rawValue) report to \(path): \(error.reason)")
        }
    }
}
