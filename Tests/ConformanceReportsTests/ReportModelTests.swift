import ConformanceProtocol
import ConformanceReports
import ConformanceRunner
import Foundation
import ReferenceAdapter
import SessionConformanceCommands
import Testing

@Suite("The report model")
struct ReportModelTests {
    @Test("requirement statuses in the report are the runner's verdicts, for a passing and a failing client")
    func statusesMatchTheRunner() throws {
        let reference = try Runs.report(Runs.referenceLauncher)
        let defective = try Runs.report(Runs.defectiveLauncher)
        for (result, report) in [reference, defective] {
            #expect(report.requirements.map(\.id) == result.requirements.map(\.id))
            for (verdict, requirement) in zip(result.requirements, report.requirements) {
                #expect(requirement.status.rawValue == verdict.status.rawValue, "\(verdict.id)")
                #expect(requirement.cases.map(\.id) == verdict.cases.map(\.id), "\(verdict.id)")
            }
            #expect(report.cases.map(\.id) == result.outcomes.map(\.caseID))
            #expect(report.cases.map(\.status.rawValue) == result.outcomes.map(\.status.rawValue))
        }
        // The defective client really fails, errors and skips, so the comparison above covered every path.
        let statuses = Set(defective.report.requirements.map(\.status))
        #expect(statuses.isSuperset(of: [.pass, .fail, .skipped, .error, .notTestable]), "\(statuses)")
    }

    @Test("the header says which suite, spec, client, seed and times the report is about")
    func header() throws {
        let report = Runs.shared.reference
        #expect(report.suite == SuiteInfo(name: "session-conformance", version: SessionConformance.version))
        #expect(report.spec.digest == (try SpecDigest.of(specRoot: Paths.specs)).digest)
        #expect(report.spec.files.contains { $0.path == "requirements.yaml" })
        #expect(report.adapter.implementation?.name == "SessionKit")
        #expect(report.adapter.capabilities == ["background-refresh", "offline-browsing"])
        #expect(report.run.seed == "1")
        #expect(report.run.completed)
        #expect(report.run.startedAt <= report.run.finishedAt)
        #expect(report.run.startedAt.hasSuffix("Z") && report.run.startedAt.count == 24, "\(report.run.startedAt)")
        #expect(report.cases.allSatisfy { $0.file.hasPrefix("cases/") })
    }

    @Test("each case has a measured duration and a trace numbered from 1 whose text shows handles")
    func casesHaveDurationsAndTraces() {
        let report = Runs.shared.reference
        #expect(report.cases.allSatisfy { $0.durationSeconds >= 0 })
        #expect(report.summary.durationSeconds > 0)
        for testCase in report.cases where testCase.status != .skipped {
            #expect(testCase.trace.first?.number == 1, "\(testCase.id)")
            #expect(testCase.trace.first?.text.hasPrefix("#1 ") == true)
        }
        let traces = report.cases.flatMap(\.trace).map(\.text).joined(separator: "\n")
        #expect(traces.contains("at#1"))
        #expect(traces.contains("rt#1"))
    }

    @Test("a failure carries its evidence: case, step, check, message, trace excerpt and the exact reproduce command")
    func failureEvidence() throws {
        let report = Runs.shared.defective
        let logging = try #require(report.requirement("LOG-NO-TOKEN-VALUES"))
        #expect(logging.status == .fail)
        let evidence = try #require(logging.evidence.first)
        #expect(report.testCase(evidence.caseID)?.status == .fail)
        #expect(evidence.step >= 1)
        #expect(!evidence.check.isEmpty && !evidence.message.isEmpty)
        #expect(evidence.excerpt.contains { $0.hasPrefix("=> #") })
        // A trigger variant's ID is quoted for the shell: its brackets would glob.
        let word = evidence.caseID.contains("[") ? "'\(evidence.caseID)'" : evidence.caseID
        #expect(evidence.reproduce == "session-conformance run --case \(word) --seed 1")
    }

    @Test("no token value reaches any report format, though the client logged them")
    func noTokenValues() throws {
        let (result, report) = (Runs.shared.defectiveResult, Runs.shared.defective)
        let leakingCases = result.outcomes.filter { outcome in
            outcome.trace.events.contains { event in
                if case .received(.log(_, let message)) = event.kind { return !outcome.vault.contained(in: message).isEmpty }
                return false
            }
        }
        try #require(!leakingCases.isEmpty, "the defective client should have logged a token")
        // Every issued token starts with sat_ or srt_: no format may show one whole.
        for format in ReportFormat.allCases {
            let text = format.render(report) + TextSummaryWriter.render(report, verbose: true)
            #expect(!text.contains("sat_") && !text.contains("srt_"), "\(format.rawValue) shows a token value")
        }
        // Nor a fragment: everything the formats show of a case comes from its part of the report.
        for outcome in result.outcomes {
            let testCase = try #require(report.testCase(outcome.caseID))
            let text = String(decoding: try JSONEncoder().encode(testCase), as: UTF8.self)
            #expect(outcome.vault.leaked(in: text).isEmpty, "the report of \(outcome.caseID) shows part of a token")
        }
    }

    @Test("the reference is certified for core and for each capability it declares")
    func referenceCertified() {
        let report = Runs.shared.reference
        #expect(report.certification.map(\.profile) == ["core", "core+background-refresh", "core+offline-browsing"])
        #expect(report.certification.allSatisfy { $0.verdict == .certified }, "\(report.certification)")
        #expect(report.gate.passed)
    }

    @Test("a failed MUST blocks certification, an undeclared capability is not claimed, and the gate fails")
    func defectiveNotCertified() throws {
        let report = Runs.shared.defective
        let core = try #require(report.certification.first { $0.profile == "core" })
        #expect(core.verdict == .notCertified)
        #expect(core.blocking.contains { $0.id == "LOG-NO-TOKEN-VALUES" })
        // The hanging case errored: nothing errored is a condition of certification.
        #expect(core.blocking.contains { $0.id.hasPrefix("late-401-retries-with-the-latest-token[") })
        let background = try #require(report.certification.first { $0.profile == "core+background-refresh" })
        #expect(background.verdict == .notClaimed)
        #expect(report.requirement("STORAGE-BACKGROUND-ACCESSIBILITY")?.status == .skipped)
        #expect(!report.gate.passed)
        #expect(report.gate.reasons.contains("MUST requirement LOG-NO-TOKEN-VALUES failed"))
    }

    @Test("a failed SHOULD is a warning: listed with the profile, not blocking it")
    func shouldFailureIsAWarning() throws {
        var report = Runs.shared.reference
        let index = try #require(report.cases.firstIndex { $0.requirements.contains("LOG-RECORD-TRANSITIONS") })
        report.cases[index].status = .fail
        report.cases[index].findings = [FindingReport(requirements: ["LOG-RECORD-TRANSITIONS"], check: "oracle:test",
                                                      message: "no transition logged", step: 1, stepKind: "launch", events: [1])]
        report.derive()
        #expect(report.requirement("LOG-RECORD-TRANSITIONS")?.status == .warn)
        let core = try #require(report.certification.first)
        #expect(core.verdict == .certified)
        #expect(core.warnings == ["LOG-RECORD-TRANSITIONS"])
        #expect(report.gate.passed)
    }

    @Test("a long trace keeps its ends and the evidence, with the whole trace's numbering")
    func traceLimit() throws {
        let report = Runs.shared.reference
        let big = try #require(report.testCase("thousand-concurrent-401s-share-one-refresh[unauthorized]"))
        #expect(big.traceEvents > ReportContext.defaultTraceLimit)
        #expect(big.trace.count == ReportContext.defaultTraceLimit)
        #expect(big.trace.last?.number == big.traceEvents)
        #expect(TraceExcerpt.text(big).contains { $0.contains("events not in the report") })
        let whole = try Runs.report(Runs.referenceLauncher, options: RunOptions(seed: 1, filters: [big.id]), traceLimit: 0).report
        #expect(whole.testCase(big.id)?.trace.count == big.traceEvents)
    }

    @Test("a trace the runner cut down once its case ended keeps the whole trace's count and numbers in the report")
    func cutDownTraceKeepsNumbers() throws {
        let launcher = InProcessLauncher(description: "chatty reference (in-process)") { ChattyReference() }
        let (result, report) = try Runs.report(launcher, options: RunOptions(seed: 1, filters: ["sign-in-starts-a-new-generation"]),
                                               traceLimit: 0)
        let outcome = try #require(result.outcomes.first)
        let testCase = try #require(report.testCase(outcome.caseID))
        #expect(testCase.status == .pass)
        #expect(outcome.trace.events.count < outcome.trace.eventCount)
        #expect(testCase.traceEvents == outcome.trace.eventCount && testCase.traceEvents > ChattyReference.lines)
        #expect(testCase.trace.map(\.number) == outcome.trace.events.map(\.number))
        #expect(testCase.trace.allSatisfy { $0.text.hasPrefix("#\($0.number) ") })
        #expect(testCase.trace.last?.number == testCase.traceEvents)
    }

    @Test("deriving twice changes nothing")
    func deriveIsIdempotent() {
        var report = Runs.shared.defective
        report.derive()
        #expect(report == Runs.shared.defective)
    }
}

/// The reference, with `lines` log lines before it answers its first barrier: a trace longer than a case keeps whole.
final class ChattyReference: InProcessClient, @unchecked Sendable {
    static let lines = 25_000
    private let inner = ReferenceClientAdapter()
    private var chatted = false

    func start() -> [AdapterMessage] { inner.start() }

    func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        guard case .barrier = message, !chatted else { return inner.handle(message) }
        chatted = true
        return (0..<Self.lines).map { .log(level: "info", message: "line \($0)") } + inner.handle(message)
    }
}
