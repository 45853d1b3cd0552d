@testable import ConformanceReports
import Foundation
import JSONCore
import Testing

/// A report is read with a bound on its JSON values as well as its bytes: parsing costs memory per value, so a
/// report of tiny values under the 64 MiB limit would otherwise take gigabytes in `diff` and `merge`.
@Suite("Report files: read bounded in values")
struct ReportValueLimitTests {
    static func treeCount(_ value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + items.reduce(0) { $0 + treeCount($1) }
        case .object(let members): 1 + members.values.reduce(0) { $0 + treeCount($1) }
        case .null, .bool, .int, .double, .string: 1
        }
    }

    @Test("the count without parsing equals the parsed tree's, on the reference report and on edge shapes")
    func countMatchesTheTree() throws {
        let reference = try String(contentsOfFile: Paths.root.appendingPathComponent("Reports/reference.json").path, encoding: .utf8)
        let samples = [reference, "[]", "{}", "[[],[[]],{}]", #"{"a":[1,"x,:[\"",{"b":null}],"c":{}}"#, " [ 1 , [ ] , 2 ] ", "7"]
        for text in samples {
            let tree = Self.treeCount(try JSONParser.parse(text))
            #expect(JSONReportWriter.valueCount(text.utf8, limit: .max) == tree, "\(text.prefix(40))")
        }
    }

    @Test("a report of more values than the limit is refused before it is parsed, saying so")
    func tooManyValuesRefused() throws {
        let reference = try String(contentsOfFile: Paths.root.appendingPathComponent("Reports/reference.json").path, encoding: .utf8)
        let padding = "[" + Array(repeating: "[]", count: JSONReportWriter.valueLimit).joined(separator: ",") + "]"
        let bomb = "{\"padding\":" + padding + "," + reference.drop { $0 != "{" }.dropFirst()
        do {
            _ = try JSONReportWriter.read(bomb, file: "bomb.json")
            Issue.record("a report of more than \(JSONReportWriter.valueLimit) values was read")
        } catch {
            #expect(error.description == "bomb.json holds more than 3000000 JSON values; a report may hold at most that many "
                    + "(one the suite writes holds about 2.5 million in 64 MiB)")
        }
        // The reference itself is far within it.
        #expect(JSONReportWriter.valueCount(reference.utf8, limit: .max) < JSONReportWriter.valueLimit / 10)
    }
}
