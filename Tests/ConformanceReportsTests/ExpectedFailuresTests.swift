import ConformanceReports
import ConformanceRunner
import Foundation
import Testing

@Suite("Expected failures")
struct ExpectedFailuresTests {
    @Test("a listed requirement that fails is known, not fail, and no longer fails the gate")
    func requirementKnown() throws {
        let expected = try Runs.expectedFailures("""
            - id: LOG-NO-TOKEN-VALUES
              reason: the debug log prints tokens until APP-1 lands
            """)
        let report = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        let requirement = try #require(report.requirement("LOG-NO-TOKEN-VALUES"))
        #expect(requirement.status == .known)
        #expect(requirement.expectedFailure == "the debug log prints tokens until APP-1 lands")
        #expect(!requirement.evidence.isEmpty, "a known failure keeps its evidence")
        // Cases whose only findings are charged to it are known too.
        for testCase in report.cases where !testCase.findings.isEmpty
            && testCase.findings.allSatisfy({ $0.requirements == ["LOG-NO-TOKEN-VALUES"] }) {
            #expect(testCase.status == .known, "\(testCase.id)")
        }
        #expect(!report.gate.reasons.contains { $0.contains("LOG-NO-TOKEN-VALUES") })
        // Known is still not certified.
        #expect(report.certification.first?.verdict == .notCertified)
        #expect(report.expectedFailures?.entries.first?.outcome == .known)
    }

    @Test("a listed case that fails is known, and so are the requirements only it fails")
    func caseKnown() throws {
        let baseline = Runs.shared.defective
        let failing = try #require(baseline.cases.first { $0.status == .fail })
        let expected = try Runs.expectedFailures("""
            - id: \(failing.id)
              reason: tracked as APP-2
            """)
        let report = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        #expect(report.testCase(failing.id)?.status == .known)
        #expect(report.testCase(failing.id)?.expectedFailure == "tracked as APP-2")
        for id in Set(failing.findings.flatMap(\.requirements)) {
            let failedElsewhere = baseline.cases.contains { $0.id != failing.id && $0.findings.contains { $0.requirements.contains(id) } }
            #expect(report.requirement(id)?.status == (failedElsewhere ? .fail : .known), "\(id)")
        }
    }

    @Test("an expected failure that passes is reported, fails the gate, and --allow-unexpected-passes accepts it")
    func unexpectedPass() throws {
        let yaml = """
            - id: REFRESH-SINGLE-FLIGHT
              reason: was flaky
            - id: sign-in-starts-a-new-generation
              reason: was broken
            """
        let strict = try Runs.report(Runs.referenceLauncher, expected: try Runs.expectedFailures(yaml)).report
        #expect(strict.expectedFailures?.unexpectedPasses.map(\.id) == ["REFRESH-SINGLE-FLIGHT", "sign-in-starts-a-new-generation"])
        #expect(!strict.gate.passed)
        #expect(strict.gate.reasons.contains { $0.hasPrefix("expected failure REFRESH-SINGLE-FLIGHT now passes") })
        #expect(strict.requirement("REFRESH-SINGLE-FLIGHT")?.status == .pass, "a pass is never turned into known")
        let lenient = try Runs.report(Runs.referenceLauncher, expected: try Runs.expectedFailures(yaml), strict: false).report
        #expect(lenient.gate.passed)
        #expect(lenient.expectedFailures?.unexpectedPasses.count == 2)
    }

    @Test("in a shard a passing requirement entry is pending: only the merged report can say it passes")
    func pendingInShards() throws {
        let expected = try Runs.expectedFailures("""
            - id: REFRESH-SINGLE-FLIGHT
              reason: was flaky
            """)
        let shards = try (1...2).map { try Runs.report(Runs.referenceLauncher, shard: Shard("\($0)/2"), expected: expected).report }
        for shard in shards {
            let outcome = shard.expectedFailures?.entries.first?.outcome
            #expect(outcome == .pending || outcome == .notRun)
            #expect(shard.gate.passed)
        }
        let merged = try ReportMerge.merge(shards.enumerated().map { ("shard\($0.offset)", $0.element) })
        #expect(merged.expectedFailures?.entries.first?.outcome == .unexpectedPass)
        #expect(!merged.gate.passed)
    }

    @Test("an error is never an expected failure")
    func errorsStayErrors() throws {
        let expected = try Runs.expectedFailures("""
            - id: late-401-retries-with-the-latest-token
              reason: hangs
            """)
        let report = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        // The ID as written names both trigger variants; each errored.
        #expect(report.testCases(named: "late-401-retries-with-the-latest-token").map(\.status) == [.error, .error])
        #expect(report.expectedFailures?.entries.first?.outcome == .errored)
    }

    @Test("the file is checked: unknown IDs with a suggestion, missing reasons, duplicates, wrong shapes", arguments: [
        ("- id: REFRESH-SINGLE-FLIHT\n  reason: x\n", "expected.yaml:1:7: error: 'REFRESH-SINGLE-FLIHT' is neither a requirement nor a case of the spec (did you mean 'REFRESH-SINGLE-FLIGHT'?)"),
        ("- id: REFRESH-SINGLE-FLIGHT\n", "expected.yaml:1:3: error: expected failure 'REFRESH-SINGLE-FLIGHT' needs a 'reason'"),
        ("- id: rapid-switching\n  reason: a\n- id: rapid-switching\n  reason: b\n", "expected.yaml:3:7: error: 'rapid-switching' is listed twice"),
        ("- id: rapid-switching\n  reson: a\n", "expected.yaml:2:3: error: unknown key 'reson' (did you mean 'reason'?)"),
        ("id: rapid-switching\n", "expected.yaml:1:1: error: expected a list of expected failures"),
        ("- id: [a]\n  reason: x\n", "expected.yaml:1:7: error: 'id' must be a non-empty string, found a list"),
    ])
    func malformed(yaml: String, message: String) throws {
        do {
            _ = try Runs.expectedFailures(yaml)
            Issue.record("accepted:\n\(yaml)")
        } catch let error as ExpectedFailures.LoadError {
            #expect(error.rendered.hasPrefix(message), "\(error.rendered)")
        }
    }

    @Test("a 100,000-deep expected-failures file is refused at its first node past the depth limit")
    func hundredThousandLevels() throws {
        let yaml = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        do {
            _ = try Runs.expectedFailures(yaml)
            Issue.record("accepted")
        } catch let error as ExpectedFailures.LoadError {
            // The line shown is a 120-character window around the column, the caret under the 65th `[`.
            #expect(error.rendered == "expected.yaml:1:65: error: nesting is deeper than 64 levels; reading stopped here\n"
                + "..." + String(repeating: "[", count: 120) + "...\n" + String(repeating: " ", count: 63) + "^\n")
        }
    }

    @Test("a device is refused at once, before a byte is read")
    func endlessFile() throws {
        let bundle = try Runs.bundle()
        do {
            _ = try ExpectedFailures.load(path: "/dev/zero", bundle: bundle)
            Issue.record("accepted")
        } catch {
            #expect(error.rendered.hasPrefix("/dev/zero:1:1: error: cannot read the expected-failures file (it is a character device; "
                                             + "only a regular file is read)"), "\(error.rendered)")
        }
    }

    @Test("an empty file expects nothing")
    func empty() throws {
        #expect(try Runs.expectedFailures("# nothing yet\n").entries.isEmpty)
    }
}
