import ConformanceReports
import ConformanceRunner
import Foundation
import JSONCore
import Testing

/// Validates JSON files against docs/report.schema.json with Python's jsonschema (Specs/schema/validate_schema.py).
enum SchemaValidator {
    static func validate(_ reports: [String: ComplianceReport]) throws -> [String: String] {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String: String] = [:]
        for (name, report) in reports {
            let path = directory.appendingPathComponent("\(name).json").path
            try JSONReportWriter.render(report).write(to: URL(fileURLWithPath: path))
            paths[path] = name
        }
        return try validate(files: paths)
    }

    /// Validates files; returns each name's verdict line.
    static func validate(files: [String: String]) throws -> [String: String] {
        let python = try #require(Program.available("python3"), "python3 is needed for the schema test")
        let run = try Program.run(python, [Paths.validator, Paths.reportSchema] + files.keys.sorted())
        try #require(run.status == 0, "validate_schema.py failed (\(run.status)); install jsonschema with 'pip install jsonschema': \(run.stderr)")
        var verdicts: [String: String] = [:]
        for line in run.stdout.split(separator: "\n").map(String.init) {
            for (path, name) in files where line.hasPrefix("OK \(path)") || line.hasPrefix("INVALID \(path)") {
                verdicts[name] = line
            }
        }
        return verdicts
    }
}

@Suite("The JSON report")
struct JSONReportTests {
    @Test("real reports validate against docs/report.schema.json: passing, failing, sharded, with expected failures", .needs(.jsonschema))
    func validatesAgainstTheSchema() throws {
        let expected = try Runs.expectedFailures("""
            - id: LOG-NO-TOKEN-VALUES
              reason: the debug log prints tokens until APP-1 lands
            - id: sign-in-starts-a-new-generation
              reason: stale entry
            """)
        let reports: [String: ComplianceReport] = [
            "reference": Runs.shared.reference,
            "defective": Runs.shared.defective,
            "shard": try Runs.report(Runs.referenceLauncher, shard: Shard("2/3")).report,
            "expected": try Runs.report(Runs.defectiveLauncher, expected: expected).report,
        ]
        let verdicts = try SchemaValidator.validate(reports)
        for name in reports.keys.sorted() {
            #expect(verdicts[name]?.hasPrefix("OK ") == true, "\(name): \(verdicts[name] ?? "no verdict")")
        }
    }

    @Test("the schema rejects a report that breaks it, so the check can fail", .needs(.jsonschema))
    func schemaRejects() throws {
        var broken = Runs.shared.reference
        broken.requirements[0].level = "MUSTN'T"
        broken.spec.digest = "md5:1234"
        let verdicts = try SchemaValidator.validate(["broken": broken])
        #expect(verdicts["broken"]?.hasPrefix("INVALID ") == true, "\(verdicts)")
    }

    @Test("keys are sorted and the same report gives the same bytes")
    func sortedAndDeterministic() throws {
        let report = Runs.shared.defective
        let text = JSONReportWriter.render(report)
        // JSONCore's writer sorts keys: writing what was read gives the same text back.
        #expect(try JSONParser.parse(text).prettyJSONText == text)
        #expect(JSONReportWriter.render(report) == text)
        let keys = text.split(separator: "\n").prefix(20).compactMap { line -> String? in
            guard line.hasPrefix("  \""), let end = line.dropFirst(3).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        #expect(keys == keys.sorted())
    }

    @Test("reading a written report gives the same report")
    func roundTrip() throws {
        for report in [Runs.shared.reference, Runs.shared.defective] {
            #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
        }
    }

    @Test("reading refuses what is not a report, naming the problem")
    func readErrors() {
        #expect(throws: JSONReportWriter.ReadError.self) { try JSONReportWriter.read("{]", file: "a.json") }
        do {
            _ = try JSONReportWriter.read(#"{"formatVersion": 7}"#, file: "b.json")
            Issue.record("a version 7 report was read")
        } catch {
            #expect(error.description.contains("version 7"))
        }
        do {
            _ = try JSONReportWriter.read(#"{"formatVersion": \#(ComplianceReport.currentFormatVersion), "suite": {}}"#, file: "c.json")
            Issue.record("a report without its sections was read")
        } catch {
            #expect(error.description.hasPrefix("c.json: missing"), "\(error)")
        }
    }

    @Test("a number too large for a double (1e999) is refused with where it is")
    func overflowingNumber() throws {
        let text = JSONReportWriter.render(Runs.shared.reference)
        let key = #""durationSeconds": "#
        let range = try #require(text.range(of: key))
        let end = try #require(text[range.upperBound...].firstIndex { $0 == "," || $0 == "\n" })
        let edited = text.replacingCharacters(in: range.upperBound..<end, with: "1e999")
        do {
            _ = try JSONReportWriter.read(edited, file: "d.json")
            Issue.record("1e999 was read")
        } catch {
            #expect(error.description == "d.json: a number too large for a double (such as 1e999) at $.cases[0].durationSeconds")
        }
    }
}

@Suite("Reports of a client that cannot start")
struct StartupFailureReportTests {
    @Test("an adapter that cannot start still gives a valid report in every format, certified for nothing", .needs(.jsonschema, .xmllint, .perl))
    func validReports() throws {
        let launcher = ProcessAdapterLauncher(commandLine: "echo 'no such client' >&2; exit 3", timeout: .seconds(5))
        let report = try Runs.report(launcher).report
        #expect(!report.run.completed)
        #expect(report.run.startupFailure?.stderrTail.contains("no such client") == true)
        #expect(report.adapter.implementation == nil)
        #expect(report.certification.allSatisfy { $0.verdict == .incomplete })
        #expect(!report.gate.passed)
        let verdicts = try SchemaValidator.validate(["startup": report])
        #expect(verdicts["startup"]?.hasPrefix("OK ") == true, "\(verdicts)")
        let junit = try JUnitSchema.validate(JUnitReportWriter.render(report))
        #expect(junit.valid, "\(junit.output)")
        #expect(try TAPReportTests.parse(TAPReportWriter.render(report))["parse_errors"] == "")
        #expect(MarkdownReportWriter.render(report).hasPrefix("## ❌ session-conformance: "))
        #expect(HTMLReportWriter.render(report).contains("The adapter could not be started"))
    }
}
