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

    /// The most JSON values a report may hold: parsing costs memory per value, not per byte, so a report of
    /// tiny values (`[[],[],...]`) under the size limit would take gigabytes. A report the suite writes averages
    /// about 27 bytes a value: one of 64 MiB holds about 2.5 million.
    public static let valueLimit = 3_000_000

    /// How many JSON values `bytes` holds (the top one, every array element, every object member's value),
    /// counted without building anything, up to `limit + 1`. Malformed text is the parser's to refuse: this counts.
    static func valueCount(_ bytes: some Collection<UInt8>, limit: Int) -> Int {
        var count = 1
        var inString = false
        var escaped = false
        var inArray: [Bool] = []
        var awaitingFirst = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            let blank = byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
            if awaitingFirst, !blank {
                awaitingFirst = false
                if byte != UInt8(ascii: "]") { count += 1 }
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["): inArray.append(true); awaitingFirst = true
            case UInt8(ascii: "{"): inArray.append(false)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): _ = inArray.popLast()
            case UInt8(ascii: ","): if inArray.last == true { count += 1 }
            case UInt8(ascii: ":"): count += 1
            default: break
            }
            if count > limit { return count }
        }
        return count
    }

    /// Reads a report that `render` wrote.
    public static func read(_ text: String, file: String = "report") throws(ReadError) -> ComplianceReport {
        if valueCount(text.utf8, limit: valueLimit) > valueLimit {
            throw ReadError(description: "\(file) holds more than \(valueLimit) JSON values; a report may hold at most that many "
                            + "(one the suite writes holds about 2.5 million in 64 MiB)")
        }
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
