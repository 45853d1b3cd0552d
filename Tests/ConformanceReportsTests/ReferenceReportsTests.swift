import ConformanceReports
import Foundation
import Testing

/// Reports/ holds the reference implementation's reports in every format; they must describe the current
/// Specs/ and what the reference does today. Regenerate them with Reports/regenerate.sh.
@Suite("The committed reference reports")
struct ReferenceReportsTests {
    static let regenerate = "regenerate them with Reports/regenerate.sh and commit Reports/"
    static let files = ["reference.json", "reference.junit.xml", "reference.md", "reference.html", "reference.tap"]

    static func committed() throws -> ComplianceReport {
        let path = Paths.reports.appendingPathComponent("reference.json").path
        try #require(FileManager.default.fileExists(atPath: path), "Reports/reference.json is missing: \(regenerate)")
        do {
            return try JSONReportWriter.read(path: path)
        } catch {
            // An older format (for example before a new status or field) is stale too.
            Issue.record("Reports/reference.json cannot be read by this version: \(error); \(regenerate)")
            throw error
        }
    }

    @Test("every format is there, and all five come from the same run")
    func everyFormat() throws {
        let report = try Self.committed()
        for name in Self.files {
            let path = Paths.reports.appendingPathComponent(name).path
            let text = try #require(try? String(contentsOfFile: path, encoding: .utf8), "Reports/\(name) is missing: \(Self.regenerate)")
            #expect(text.contains(report.spec.digest), "Reports/\(name) is not from the run of Reports/reference.json: \(Self.regenerate)")
        }
    }

    @Test("the reports certify against the current Specs/")
    func specDigestIsCurrent() throws {
        let report = try Self.committed()
        let current = try SpecDigest.of(specRoot: Paths.specs)
        let committed = Dictionary(report.spec.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        let now = Dictionary(current.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        let changed = Set(committed.keys).union(now.keys).filter { committed[$0] != now[$0] }.sorted()
        #expect(report.spec.digest == current.digest,
                "Reports/ are stale: Specs/ changed since they were made (\(changed.joined(separator: ", "))); \(Self.regenerate)")
        #expect(report.suite.version == Runs.shared.reference.suite.version, "the suite version changed; \(Self.regenerate)")
    }

    @Test("every requirement and case has the status a fresh run of the reference gives")
    func statusesAreCurrent() throws {
        let report = try Self.committed()
        let fresh = Runs.shared.reference
        #expect(report.run.command == "session-conformance run" && report.run.seed == "1" && report.run.shard == nil
                && report.run.filters.isEmpty, "Reports/ must be a whole run with the default options; \(Self.regenerate)")
        let before = Dictionary(report.requirements.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        for requirement in fresh.requirements where before[requirement.id] != requirement.status {
            Issue.record("Reports/ say \(requirement.id) is \(before[requirement.id]?.rawValue ?? "absent"); a fresh run says \(requirement.status.rawValue): \(Self.regenerate)")
        }
        #expect(report.requirements.map(\.id) == fresh.requirements.map(\.id), "\(Self.regenerate)")
        #expect(report.cases.map { "\($0.id) \($0.status.rawValue)" } == fresh.cases.map { "\($0.id) \($0.status.rawValue)" },
                "the cases or their statuses changed; \(Self.regenerate)")
        #expect(report.certification.map(\.verdict) == fresh.certification.map(\.verdict))
    }
}
