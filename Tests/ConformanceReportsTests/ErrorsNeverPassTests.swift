import ConformanceReports
import ConformanceRunner
import Foundation
@testable import SessionConformanceCommands
import Testing

/// An `error` case fails the run whatever `--expected-failures` says, and no profile it covers is certified.
@Suite("Errors never pass", .serialized)
struct ErrorsNeverPassTests {
    /// A spec folder: the real one plus a case that covers only a SHOULD requirement and requests the
    /// resource the defective client hangs on, so it errors without any MUST requirement to blame.
    static func specWithErroringCase() throws -> URL {
        let root = try Paths.temporaryDirectory().appendingPathComponent("Specs")
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: root.path)
        try """
            kind: cases
            version: 1
            cases:
              - id: hangs-covering-a-should
                title: The client hangs in a case that covers only a SHOULD requirement
                requirements: [LOG-RECORD-TRANSITIONS]
                steps:
                  - launch: {}
                  - signIn: { account: alice }
                  - request: { resource: slow }
                  - expect: { for: [LOG-RECORD-TRANSITIONS], state: authenticated }

            """.write(to: root.appendingPathComponent("cases/zz-hangs.yaml"))
        return root
    }

    static func run(_ arguments: [String]) throws -> (code: ExitCode, console: BufferConsole) {
        let console = BufferConsole()
        let parsed = try CommandLineParser.parse(arguments, options: RunCommand.options)
        let code = try RunCommand.run(parsed, console: console, launcher: Runs.defectiveLauncher)
        return (code, console)
    }

    @Test("run: a case that errors exits 1 under --expected-failures, and the last lines say so")
    func runExitsOne() throws {
        let specs = try Self.specWithErroringCase()
        defer { try? FileManager.default.removeItem(at: specs.deletingLastPathComponent()) }
        let expected = specs.deletingLastPathComponent().appendingPathComponent("expected.yaml")
        try "- id: LOG-RECORD-TRANSITIONS\n  reason: known to hang\n- id: hangs-covering-a-should\n  reason: known to hang\n"
            .write(to: expected)
        let (code, console) = try Self.run(["--spec-root", specs.path, "--case", "hangs-covering-a-should",
                                            "--expected-failures", expected.path])
        #expect(code == .conformanceFailure, "\(console.stdout)")
        let last = console.stdout.split(separator: "\n").suffix(2).map(String.init)
        #expect(last.first?.hasPrefix("errors: 1 case could not run to the end (hangs-covering-a-should): an error fails the run") == true,
                "\(last)")
        #expect(last.last?.contains("seed 1: FAILED: case hangs-covering-a-should errored: ") == true, "\(last)")
        #expect(console.stdout.contains("ERROR case hangs-covering-a-should (cases/zz-hangs.yaml): "))
        #expect(console.stdout.contains("hangs-covering-a-should: errored (an error is never an expected failure)"))
    }

    @Test("merge: shards holding an errored case merge into a failing run (exit 1)")
    func mergeExitsOne() throws {
        let specs = try Self.specWithErroringCase()
        let directory = specs.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 1...2 {
            let json = directory.appendingPathComponent("s\(index).json").path
            let (code, console) = try Self.run(["--spec-root", specs.path, "--case", "hangs-covering-a-should",
                                                "--shard", "\(index)/2", "--report", "json=\(json)"])
            let holdsTheCase = try JSONReportWriter.read(path: json).cases.contains { $0.status == .error }
            #expect(code == (holdsTheCase ? .conformanceFailure : .success), "\(console.stdout)")
        }
        let (code, console) = cli("merge", directory.appendingPathComponent("s1.json").path,
                                  directory.appendingPathComponent("s2.json").path)
        #expect(code == .conformanceFailure, "\(console.stderr)")
        #expect(console.stderr.contains("FAILED: case hangs-covering-a-should errored: "))
    }

    @Test("an errored case whose failures are all expected still fails the gate and blocks every profile it covers")
    func expectedFailuresDoNotMaskAnError() throws {
        // What masked errors before: the case's requirements were charged (by an expectation that failed before
        // the adapter hung), so they failed, and an expected-failures file turned every failure into `known`.
        func chargingTheErroredCase(_ report: ComplianceReport) throws -> (ComplianceReport, CaseReport) {
            var report = report
            let index = try #require(report.cases.firstIndex { $0.status == .error }, "the defective client errors in one case")
            report.cases[index].findings = [FindingReport(requirements: report.cases[index].requirements, check: "expect",
                                                          message: "expected 1 requests to /auth/refresh, got 2", step: 2,
                                                          stepKind: "expect", events: [])]
            report.derive()
            return (report, report.cases[index])
        }
        let failing = try chargingTheErroredCase(Runs.shared.defective).0.requirements
            .filter { $0.status == .fail || $0.status == .warn }.map(\.id)
        let expected = try Runs.expectedFailures(failing.map { "- id: \($0)\n  reason: known\n" }.joined())
        let (report, errored) = try chargingTheErroredCase(try Runs.report(Runs.defectiveLauncher, expected: expected).report)
        #expect(!report.requirements.contains { $0.status == .fail || $0.status == .warn || $0.status == .error })
        #expect(!report.gate.passed)
        #expect(report.gate.reasons.first == "case \(errored.id) errored: \(errored.reason ?? "")")
        let covering = report.certification.filter { profile in profile.verdict != .notClaimed }
        #expect(!covering.isEmpty)
        for profile in covering {
            #expect(profile.verdict == .notCertified)
            #expect(profile.blocking.contains { $0.id == errored.id && $0.why.hasPrefix("case errored: ") }, "\(profile.blocking)")
        }
        let allErrored = report.cases.filter { $0.status == .error }.map(\.id)
        #expect(allErrored.contains(errored.id))
        #expect(TextSummaryWriter.render(report).contains(
            "errors: \(allErrored.count) case\(allErrored.count == 1 ? "" : "s") could not run to the end (\(allErrored.joined(separator: ", ")))"))
    }
}
