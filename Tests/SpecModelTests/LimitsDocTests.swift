import Foundation
import JSONCore
import SpecModel
@testable import SpecYAML
import Testing

/// docs/spec-format.md, section 14, lists every limit of the files the suite reads; each number there is the
/// code's own constant.
@Suite("The documented limits")
struct LimitsDocTests {
    static func section() throws -> String {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("docs/spec-format.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n## 14. Limits\n"))
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// `4194304` as the docs write it: `4,194,304`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }

    @Test("every number in the Limits table is the constant the loader, the decoder and the renderer use")
    func tableMatchesTheCode() throws {
        let section = try Self.section()
        let rows = [
            "| size of a spec file, world profile, expected-failures file or design document | "
                + "\(SpecLimits.fileBytes / (1024 * 1024)) MiB (\(Self.grouped(SpecLimits.fileBytes)) bytes)",
            "\"the file has more than \(SpecLimits.fileBytes) bytes\"",
            "| nesting of lists and mappings | \(SpecLimits.depth) levels; reading stops at the first node deeper |",
            "| length of one scalar (string, number, key) | \(Self.grouped(SpecLimits.scalarBytes)) bytes |",
            "| nodes in one file (scalars, lists, mappings, keys) | \(Self.grouped(SpecLimits.nodes)); reading stops there |",
            "| items in one list, entries in one mapping | \(Self.grouped(SpecLimits.sequenceItems)) |",
            "| `request.count`, `fault.times` | \(NumericLimits.repetitions.lowerBound) to \(Self.grouped(NumericLimits.repetitions.upperBound)) |",
            "| counts in `expect` | \(NumericLimits.observedCount.lowerBound) to \(Self.grouped(NumericLimits.observedCount.upperBound)) |",
            "| \(Self.grouped(Int(NumericLimits.seconds.lowerBound))) to \(Self.grouped(Int(NumericLimits.seconds.upperBound))) seconds |",
            "| `skewClock.seconds` | \(Self.grouped(Int(NumericLimits.skew.lowerBound))) to \(Self.grouped(Int(NumericLimits.skew.upperBound))) seconds |",
            "| `schedule.seed`, `schedule.delay`, `schedule.changes` | \(NumericLimits.scheduleSeed.lowerBound) to \(Self.grouped(NumericLimits.scheduleSeed.upperBound)); "
                + "\(NumericLimits.scheduleDelay.lowerBound) to \(NumericLimits.scheduleDelay.upperBound) percent; "
                + "\(NumericLimits.scheduleChanges.lowerBound) to \(NumericLimits.scheduleChanges.upperBound) |",
            "| diagnostics shown per file | \(SpecLimits.errorsPerFile), then",
            "| diagnostic output in all | \(SpecLimits.diagnosticBytes / 1024) KiB (\(Self.grouped(SpecLimits.diagnosticBytes)) bytes), then",
            "| a message under a diagnostic | \(DiagnosticRenderer.maximumMessageLength) characters, then",
            "| a source line under a diagnostic | a \(SpecLimits.sourceLineWindow)-character window around the column",
            "| \(JSONParser.maximumDepth) levels; the first value deeper is an error |",
        ]
        for row in rows {
            #expect(section.contains(row), "docs/spec-format.md, Limits, lacks: \(row)")
        }
    }
}
