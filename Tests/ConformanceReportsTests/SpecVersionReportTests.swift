import ConformanceReports
import Foundation
import JSONCore
import SessionConformanceCommands
import Testing

@Suite("Spec version in reports")
struct SpecVersionReportTests {
    static var specVersion: String {
        get throws { try #require(try Runs.bundle().specVersion).description }
    }

    @Test("every format names the spec version: JSON, Markdown, HTML, JUnit property, TAP comment, console")
    func everyFormatNamesIt() throws {
        let report = Runs.shared.reference
        let version = try Self.specVersion
        #expect(report.spec.version == version)
        #expect(JSONReportWriter.value(report)["spec"]?["version"]?.string == version)
        #expect(MarkdownReportWriter.render(report).contains("| spec | version \(version); `\(report.spec.digest)`"))
        let html = HTMLReportWriter.render(report)
        #expect(html.contains("<tr><th>spec version</th><td>\(version)</td></tr>"))
        #expect(html.contains("spec \(version) <code>"))
        #expect(JUnitReportWriter.render(report).contains(#"<property name="spec.version" value="\#(version)"/>"#))
        #expect(TAPReportWriter.render(report).split(separator: "\n")[2].contains("; spec version \(version) sha256:"))
        #expect(TextSummaryWriter.render(report).split(separator: "\n").contains("spec version: \(version) (CHANGELOG.md says what each version changed)"))
    }

    @Test("--version prints the tool's version and the spec's")
    func versionOption() throws {
        let (code, console) = cli("--version")
        #expect(code == .success)
        #expect(console.stdout.hasPrefix("session-conformance \(SessionConformance.version), spec "))
        if FileManager.default.fileExists(atPath: "Specs/requirements.yaml") {
            #expect(console.stdout == "session-conformance \(SessionConformance.version), spec \(try Self.specVersion) (Specs/requirements.yaml)\n")
        }
    }

    /// The JSON of a report written before spec versions and case definitions.
    static func withoutVersionFields(_ report: ComplianceReport) throws -> ComplianceReport {
        guard case .object(var root) = JSONReportWriter.value(report), case .object(var spec)? = root["spec"],
              case .array(let cases)? = root["cases"] else { throw CocoaError(.coderInvalidValue) }
        spec["version"] = nil
        root["spec"] = .object(spec)
        root["cases"] = .array(cases.map { value in
            guard case .object(var object) = value else { return value }
            object["definition"] = nil
            return .object(object)
        })
        return try JSONReportWriter.read(JSONValue.object(root).jsonText)
    }

    @Test("a report written before spec versions is read; its version is unknown in every format")
    func oldReportsAreRead() throws {
        let old = try Self.withoutVersionFields(Runs.shared.reference)
        #expect(old.spec.version == nil && old.cases.allSatisfy { $0.definition == nil })
        #expect(JUnitReportWriter.render(old).contains(#"<property name="spec.version" value="unknown"/>"#))
        let diff = ReportDiff.compare(old: old, new: Runs.shared.reference)
        #expect(diff.notes.contains { $0.hasPrefix("the spec versions differ (unknown: a report from before spec versions and ") })
        #expect(diff.rendered(old: "old.json", new: "new.json").contains("spec version: unknown -> \(try Self.specVersion)\n"))
    }
}

@Suite("Diff across spec versions")
struct DiffAcrossSpecVersionsTests {
    /// The reference's report with LOG-NO-TOKEN-VALUES failing as the defective client fails it, and the cases
    /// that charge it.
    static func failingLogRequirement() throws -> (report: ComplianceReport, cases: Set<String>) {
        var report = Runs.shared.reference
        let failing = try #require(Runs.shared.defective.requirement("LOG-NO-TOKEN-VALUES"))
        let index = try #require(report.requirements.firstIndex { $0.id == failing.id })
        report.requirements[index] = failing
        let cases = Set(failing.evidence.map(\.caseID))
        try #require(!cases.isEmpty && cases.allSatisfy { report.testCase($0) != nil })
        for id in cases { report.cases[report.cases.firstIndex { $0.id == id }!].status = .fail }
        return (report, cases)
    }

    /// The same report as made under an older spec version (another digest).
    static func olderSpec(_ report: ComplianceReport) -> ComplianceReport {
        var old = report
        old.spec.version = "2.0"
        old.spec.digest = "sha256:" + String(repeating: "0", count: 64)
        return old
    }

    @Test("a failure from a case the new version added is the suite's: listed apart, no regression")
    func newCaseIsTheSuites() throws {
        let (new, cases) = try Self.failingLogRequirement()
        var old = Self.olderSpec(Runs.shared.reference)
        old.cases.removeAll { cases.contains($0.id) }
        let diff = ReportDiff.compare(old: old, new: new)
        #expect(!diff.hasRegressions)
        let change = try #require(diff.suiteChanges.first { $0.id == "LOG-NO-TOKEN-VALUES" })
        var culprits: [String] = []
        for evidence in change.detail == nil ? [] : new.requirement("LOG-NO-TOKEN-VALUES")!.evidence
        where !culprits.contains(evidence.caseID) { culprits.append(evidence.caseID) }
        #expect(change.cause == .suite(culprits.prefix(3).map { "new case \($0)" }.joined(separator: "; ")
                                       + (culprits.count > 3 ? "; and \(culprits.count - 3) more" : "")))
        #expect(diff.caseChanges.filter { cases.contains($0.id) }.allSatisfy { $0.cause == .suite("new case") })
        let text = diff.rendered(old: "old.json", new: "new.json")
        #expect(text.contains("spec version: 2.0 -> \(try SpecVersionReportTests.specVersion)\n"))
        #expect(text.contains("  LOG-NO-TOKEN-VALUES (MUST): pass -> fail  (suite: new case "))
        #expect(text.contains("regressions (0)\n"))
        #expect(text.hasSuffix("result: no regression; 1 worse verdict from the suite\n"))
    }

    @Test("a changed verdict of a case the versions define alike is the client's: a regression")
    func sameCaseIsTheClients() throws {
        let (new, cases) = try Self.failingLogRequirement()
        let diff = ReportDiff.compare(old: Self.olderSpec(Runs.shared.reference), new: new)
        #expect(diff.hasRegressions)
        #expect(diff.regressions.map(\.id) == ["LOG-NO-TOKEN-VALUES"] && diff.regressions[0].cause == .client)
        #expect(diff.suiteChanges.isEmpty)
        #expect(diff.caseChanges.filter { cases.contains($0.id) }.allSatisfy { $0.cause == .client })
    }

    @Test("a case whose definition changed between the versions makes its verdict change the suite's")
    func changedCaseIsTheSuites() throws {
        let (new, cases) = try Self.failingLogRequirement()
        var old = Self.olderSpec(Runs.shared.reference)
        for index in old.cases.indices where cases.contains(old.cases[index].id) {
            old.cases[index].definition = "sha256:" + String(repeating: "1", count: 64)
        }
        let diff = ReportDiff.compare(old: old, new: new)
        #expect(!diff.hasRegressions)
        #expect(diff.suiteChanges.map(\.id) == ["LOG-NO-TOKEN-VALUES"])
        #expect(diff.suiteChanges.first.map { $0.cause.text.hasPrefix("suite: changed case ") } == true)
        #expect(diff.caseChanges.filter { cases.contains($0.id) }.allSatisfy { $0.cause == .suite("changed case") })
    }

    @Test("a reworded requirement's worse verdict is the suite's")
    func rewordedRequirementIsTheSuites() throws {
        let (new, _) = try Self.failingLogRequirement()
        var old = Self.olderSpec(Runs.shared.reference)
        let index = try #require(old.requirements.firstIndex { $0.id == "LOG-NO-TOKEN-VALUES" })
        old.requirements[index].statement = "An older wording."
        let diff = ReportDiff.compare(old: old, new: new)
        #expect(diff.suiteChanges.map(\.cause) == [.suite("LOG-NO-TOKEN-VALUES was reworded")])
        #expect(!diff.hasRegressions)
    }

    @Test("without case definitions in the old report the cause is unknown and counts as a regression")
    func unknownCountsAsRegression() throws {
        let (new, _) = try Self.failingLogRequirement()
        let old = Self.olderSpec(try SpecVersionReportTests.withoutVersionFields(Runs.shared.reference))
        let diff = ReportDiff.compare(old: old, new: new)
        #expect(diff.regressions.map(\.id) == ["LOG-NO-TOKEN-VALUES"])
        #expect(diff.regressions.first?.cause == .unknown("no case definition recorded in OLD"))
        #expect(diff.notes.contains { $0.hasPrefix("OLD records no case definitions") })
    }

    @Test("diff exits 0 when every worse verdict is the suite's and 1 when one is the client's")
    func exitCodes() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (new, cases) = try Self.failingLogRequirement()
        var old = Self.olderSpec(Runs.shared.reference)
        let newPath = directory.appendingPathComponent("new.json").path
        try JSONReportWriter.render(new).write(to: URL(fileURLWithPath: newPath))
        let samePath = directory.appendingPathComponent("same-cases.json").path
        try JSONReportWriter.render(old).write(to: URL(fileURLWithPath: samePath))
        old.cases.removeAll { cases.contains($0.id) }
        let fewerPath = directory.appendingPathComponent("fewer-cases.json").path
        try JSONReportWriter.render(old).write(to: URL(fileURLWithPath: fewerPath))
        #expect(cli("diff", fewerPath, newPath).code == .success)
        let client = cli("diff", samePath, newPath)
        #expect(client.code == .conformanceFailure)
        #expect(client.console.stdout.contains("result: 1 regression\n"))
    }
}
