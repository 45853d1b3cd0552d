import Foundation
import JSONCore

/// The report as JSON: the interchange format `diff` and `merge` read, described by `docs/report.schema.json`.
/// Keys are sorted and the text is indented (JSONCore's writer), so the same report gives the same bytes.
public enum JSONReportWriter {
    public static func render(_ report: ComplianceReport) -> String {
        value(report).prettyJSONText
    }

    /// The report as a JSON value.
    public static func value(_ report: ComplianceReport) -> JSONValue {
        do {
            let data = try JSONEncoder().encode(report)
            return try JSONParser.parse(String(decoding: data, as: UTF8.self))
        } catch {
            // Encoding plain structs of strings and numbers cannot fail, and the parser reads what Foundation writes.
            preconditionFailure("a report could not be encoded: \(error)")
        }
    }

    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Reads a report that `render` wrote.
    public static func read(_ text: String, file: String = "report") throws(ReadError) -> ComplianceReport {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw ReadError(description: "\(file) is not JSON: \(error)")
        }
        if let place = nonFinite(value, at: "$") {
            throw ReadError(description: "\(file): a number too large for a double (such as 1e999) at \(place)")
        }
        guard let version = value["formatVersion"]?.int else {
            throw ReadError(description: "\(file) is not a session-conformance report (no formatVersion)")
        }
        guard version == ComplianceReport.currentFormatVersion else {
            throw ReadError(description: "\(file) is a version \(version) report; this tool reads version \(ComplianceReport.currentFormatVersion)")
        }
        do {
            return try JSONDecoder().decode(ComplianceReport.self, from: Data(text.utf8))
        } catch let DecodingError.keyNotFound(key, context) {
            throw ReadError(description: "\(file): missing '\(key.stringValue)' at \(path(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
                let DecodingError.dataCorrupted(context) {
            throw ReadError(description: "\(file): \(context.debugDescription) at \(path(context.codingPath))")
        } catch {
            throw ReadError(description: "\(file): \(error)")
        }
    }

    /// Reads the report in the file `path`, refused before reading when larger than `limit` bytes
    /// (``ReportFile/readLimit``).
    public static func read(path: String, limit: Int = ReportFile.readLimit) throws(ReadError) -> ComplianceReport {
        let bytes: [UInt8]
        do {
            bytes = try ReportFile.read(path: path, limit: limit)
        } catch {
            throw ReadError(description: error.description)
        }
        return try read(String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// Where the first number that overflows a double is (`$.summary.durationSeconds`), or nil: the decoder
    /// would refuse it without saying where.
    private static func nonFinite(_ value: JSONValue, at place: String) -> String? {
        switch value {
        case .double(let number): return number.isFinite ? nil : place
        case .array(let items):
            return items.enumerated().lazy.compactMap { nonFinite($0.element, at: "\(place)[\($0.offset)]") }.first
        case .object(let members):
            return members.keys.sorted().lazy.compactMap { nonFinite(members[$0]!, at: "\(place).\($0)") }.first
        case .null, .bool, .int, .string: return nil
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        "$" + codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }
}
