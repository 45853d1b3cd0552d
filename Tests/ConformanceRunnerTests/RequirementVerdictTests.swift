import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing
import SimulatedWorld

@Suite("requirement verdicts")
struct RequirementVerdictTests {
    /// Run with a client that sends the refresh call with a bearer token: one MUST fails through an oracle,
    /// one SHOULD through an expectation, one MUST passes.
    static let yaml = Harness.caseFile("""
      - id: refresh-once
        title: A refused request is refreshed and retried
        requirements: [REFRESH-NOT-THROUGH-401-HANDLER]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
      - id: sign-in-validates-input
        title: Malformed sign-in input is refused without a request
        requirements: [SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          - signIn: { email: not-an-email, password: short }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], results: { codes: { invalidInput: 1 } }, requests: [{ path: /auth/login, count: 0 }] }
      - id: transitions-recorded
        title: An expectation that fails is charged to the case's SHOULD requirement
        requirements: [LOG-RECORD-TRANSITIONS]
        steps:
          - launch: {}
          - expect: { for: [LOG-RECORD-TRANSITIONS], state: authenticated }

    """)

    static func result() throws -> RunResult {
        try Harness.run(Self.yaml, .init(defects: [.refreshWithAuthorization]))
    }

    @Test("a MUST requirement with a finding fails, and the finding is listed with its case")
    func mustWithFindingFails() throws {
        let result = try Self.result()
        let verdict = try #require(Harness.verdict("REFRESH-NOT-THROUGH-401-HANDLER", in: result))
        #expect(verdict.level == .must)
        #expect(verdict.status == .fail)
        #expect(verdict.findings.map(\.caseID) == ["refresh-once"])
        #expect(verdict.cases.map(\.id) == ["refresh-once"])
        #expect(!result.mustRequirementsPass)
        #expect(verdict.findings.allSatisfy { !$0.finding.evidence.isEmpty })
    }

    @Test("a SHOULD requirement with a finding is a warning, not a failure")
    func shouldWithFindingWarns() throws {
        let result = try Self.result()
        let verdict = try #require(Harness.verdict("LOG-RECORD-TRANSITIONS", in: result))
        #expect(verdict.level == .should)
        #expect(verdict.status == .warn)
        #expect(verdict.findings.first?.finding.check == "expect")
        #expect(verdict.findings.first?.finding.message == "expected state 'authenticated', the client is in 'signedOut'")
    }

    @Test("a requirement covered by a passing case passes")
    func coveredAndCleanPasses() throws {
        let verdict = try #require(Harness.verdict("SIGNIN-VALIDATE-INPUT", in: try Self.result()))
        #expect(verdict.status == .pass)
        #expect(verdict.findings.isEmpty)
    }

    @Test("a requirement no case covers is untested, with the reason")
    func uncoveredIsUntested() throws {
        let verdict = try #require(Harness.verdict("CLOCK-SKEW-TOLERANT", in: try Self.result()))
        #expect(verdict.status == .untested)
        #expect(verdict.reason == "no case covers it yet")
    }

    @Test("a requirement whose refresh variants were skipped for an unused trigger stays untested, even beside cases skipped for a capability")
    func triggerSkipsBesideCapabilitySkipsStayUntested() {
        let covering = [
            VerdictRule.Covering(id: "queued-requests-share-one-refresh[unauthorized]", status: .skipped,
                                 reason: VerdictRule.triggerNotUsed + "the client did not refresh on a 401"),
            VerdictRule.Covering(id: "background-refresh-joins-the-foreground-refresh", status: .skipped,
                                 reason: "the adapter does not declare background-refresh"),
        ]
        let (status, reason) = VerdictRule.decide(level: .must, capability: nil, declared: [], charged: 0, covering: covering)
        #expect(status == .untested)
        #expect(reason?.hasPrefix("every covering case was skipped: queued-requests-share-one-refresh[unauthorized]: refresh trigger not used") == true,
                "\(reason ?? "")")
        // Skipped only for a capability, the requirement does not apply.
        let (alone, _) = VerdictRule.decide(level: .must, capability: nil, declared: [], charged: 0, covering: [covering[1]])
        #expect(alone == .skipped)
    }

    @Test("informative and server statements are not testable")
    func informativeIsNotTestable() throws {
        let result = try Self.result()
        let informative = try #require(Harness.verdict("SESSION-BUG-SYMPTOMS", in: result))
        #expect(informative.level == .informative)
        #expect(informative.status == .notTestable)
        let server = try #require(Harness.verdict("ROTATION-SERVER-REUSE-WINDOW", in: result))
        #expect(server.level == .server)
        #expect(server.status == .notTestable)
    }

    @Test("a requirement that needs a capability the client lacks is skipped even without a case")
    func capabilityRequirementSkipped() throws {
        let verdict = try #require(Harness.verdict("STORAGE-BACKGROUND-ACCESSIBILITY", in: try Self.result()))
        #expect(verdict.status == .skipped)
        #expect(verdict.reason == "the adapter does not declare background-refresh")
    }

    @Test("a finding charged to a requirement whose capability the client did not declare counts: offline browsing nobody declared")
    func chargedWithoutItsCapability() {
        let covering = [VerdictRule.Covering(id: "cached-content-while-restoring-needs-a-declared-policy", status: .fail, reason: nil)]
        let (should, _) = VerdictRule.decide(level: .should, capability: "offline-browsing", declared: [], charged: 1, covering: covering)
        #expect(should == .warn)
        let (must, _) = VerdictRule.decide(level: .must, capability: "offline-browsing", declared: [], charged: 1, covering: covering)
        #expect(must == .fail)
        let (unchargedStatus, reason) = VerdictRule.decide(level: .should, capability: "offline-browsing", declared: [], charged: 0, covering: covering)
        #expect(unchargedStatus == .skipped)
        #expect(reason == "the adapter does not declare offline-browsing")
    }

    @Test("every requirement of the catalogue gets exactly one verdict, in catalogue order")
    func oneVerdictPerRequirement() throws {
        let result = try Self.result()
        let catalogue = try #require(try Harness.bundle(Self.yaml).catalogue)
        #expect(result.requirements.map(\.id) == catalogue.requirements.map(\.id))
    }
}

/// A requirement is decided only by conclusive cases: one covered only by inconclusive cases is untested.
@Suite("requirement verdicts over inconclusive, skipped and erroring cases")
struct InconclusiveVerdictTests {
    static func outcome(_ id: String, _ status: CaseStatus, requirements: [String], reason: String? = nil,
                        findings: [Finding] = []) -> CaseOutcome {
        var outcome = CaseOutcome(caseID: id, title: id, file: "inline.yaml", requirements: requirements, status: status,
                                  findings: findings, reason: reason, stderrTail: nil, trace: Trace(), vault: TokenVault(seed: 1), seed: 1)
        // These verdicts are about case statuses: a conclusive case here reached every situation.
        if status == .pass || status == .fail { outcome.reached = Set(Situation.allCases) }
        return outcome
    }

    static func verdict(_ id: String, _ outcomes: [CaseOutcome], capabilities: [String] = []) throws -> RequirementVerdict {
        let catalogue = try #require(try Harness.bundle(RequirementVerdictTests.yaml).catalogue)
        let verdicts = VerdictBuilder.verdicts(catalogue: catalogue, outcomes: outcomes, capabilities: capabilities)
        return try #require(verdicts.first { $0.id == id })
    }

    @Test("a requirement covered only by an inconclusive case is untested with the case's reason, never pass")
    func onlyInconclusiveIsUntested() throws {
        let verdict = try Self.verdict("REFRESH-SINGLE-FLIGHT", [
            Self.outcome("lost-refresh", .inconclusive, requirements: ["REFRESH-SINGLE-FLIGHT"], reason: "no refresh was started"),
        ])
        #expect(verdict.status == .untested)
        #expect(verdict.reason == "every covering case was inconclusive: lost-refresh: no refresh was started")
    }

    @Test("inconclusive and skipped cases together leave it untested, naming both")
    func inconclusiveAndSkipped() throws {
        let verdict = try Self.verdict("REFRESH-SINGLE-FLIGHT", [
            Self.outcome("a", .skipped, requirements: ["REFRESH-SINGLE-FLIGHT"], reason: "needs offline-browsing"),
            Self.outcome("b", .inconclusive, requirements: ["REFRESH-SINGLE-FLIGHT"], reason: "kill point never reached"),
        ])
        #expect(verdict.status == .untested)
        #expect(verdict.reason == "every covering case was inconclusive or skipped: b: kill point never reached; "
                + "a skipped: needs offline-browsing")
    }

    @Test("one conclusive case is enough to pass; an inconclusive one beside it changes nothing")
    func conclusiveBesideInconclusivePasses() throws {
        let verdict = try Self.verdict("REFRESH-SINGLE-FLIGHT", [
            Self.outcome("a", .inconclusive, requirements: ["REFRESH-SINGLE-FLIGHT"], reason: "no refresh was started"),
            Self.outcome("b", .pass, requirements: ["REFRESH-SINGLE-FLIGHT"]),
        ])
        #expect(verdict.status == .pass)
        #expect(verdict.reason == nil)
    }

    @Test("an untested MUST means the MUST requirements do not pass")
    func untestedMustFailsTheRun() throws {
        let catalogue = try #require(try Harness.bundle(RequirementVerdictTests.yaml).catalogue)
        let outcomes = catalogue.requirements.filter(\.level.isTestable).map {
            Self.outcome("case-\($0.id.lowercased())", .pass, requirements: [$0.id])
        } + [Self.outcome("vacuous", .inconclusive, requirements: ["REFRESH-SINGLE-FLIGHT"], reason: "no refresh was started")]
        let vacuous = outcomes.filter { $0.caseID != "case-refresh-single-flight" }
        func result(_ outcomes: [CaseOutcome]) -> RunResult {
            RunResult(implementation: nil, capabilities: ["background-refresh", "offline-browsing"], offlineResources: [],
                      adapter: "test", seed: 1, outcomes: outcomes,
                      requirements: VerdictBuilder.verdicts(catalogue: catalogue, outcomes: outcomes,
                                                            capabilities: ["background-refresh", "offline-browsing"]),
                      startupFailure: nil)
        }
        #expect(result(outcomes).mustRequirementsPass)
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: result(vacuous))?.status == .untested)
        #expect(!result(vacuous).mustRequirementsPass)
    }

    @Test("a case that errored makes the MUST requirements not pass, even when it only covers a SHOULD")
    func errorNeverPasses() throws {
        let catalogue = try #require(try Harness.bundle(RequirementVerdictTests.yaml).catalogue)
        let should = try #require(catalogue.requirements.first { $0.level == .should && $0.capability == nil })
        let outcomes = catalogue.requirements.filter(\.level.isTestable).map {
            Self.outcome("case-\($0.id.lowercased())", .pass, requirements: [$0.id])
        } + [Self.outcome("crashes", .error, requirements: [should.id], reason: "the adapter exited")]
        let result = RunResult(implementation: nil, capabilities: ["background-refresh", "offline-browsing"],
                               offlineResources: [], adapter: "test", seed: 1, outcomes: outcomes,
                               requirements: VerdictBuilder.verdicts(catalogue: catalogue, outcomes: outcomes,
                                                                     capabilities: ["background-refresh", "offline-browsing"]),
                               startupFailure: nil)
        #expect(!result.mustRequirementsPass)
    }
}

/// Identical findings of one check in one case are one finding with a count.
@Suite("finding grouping")
struct FindingGroupingTests {
    static func finding(_ message: String, _ evidence: [Int], requirements: [String] = ["REFRESH-SINGLE-FLIGHT"],
                        check: String = "oracle:single-refresh-in-flight", step: Int = 5) -> Finding {
        Finding(requirements: requirements, check: check, message: message, evidence: evidence, step: step)
    }

    @Test("findings that differ only in numbers and token handles collapse, keeping the first message, a count and 3 events")
    func identicalCollapse() {
        let findings = (1...999).map { index in
            Self.finding("a second refresh was sent while refresh #\(index * 3) of rt#\(index) was still in flight", [index * 3 + 1])
        }
        let grouped = Finding.grouped(findings)
        #expect(grouped.count == 1)
        #expect(grouped[0].occurrences == 999)
        #expect(grouped[0].message == "a second refresh was sent while refresh #3 of rt#1 was still in flight")
        #expect(grouped[0].evidence == [4, 7, 10])
        #expect(grouped[0].step == 5)
    }

    @Test("another check, other requirements or other words are another finding; order of first occurrence is kept")
    func differentStaySeparate() {
        let grouped = Finding.grouped([
            Self.finding("expected 1 requests to /auth/refresh, got 5", [3], check: "expect"),
            Self.finding("expected 1 requests to /auth/refresh, got 5", [3], requirements: ["REFRESH-RETRY-ONCE"], check: "expect"),
            Self.finding("expected 1 requests to /auth/refresh, got 7", [9], check: "expect"),
            Self.finding("expected state 'authenticated', the client is in 'signedOut'", [4], check: "expect"),
            Self.finding("expected 1 requests to /auth/refresh, got 5", [3]),
        ])
        #expect(grouped.map(\.occurrences) == [2, 1, 1, 1])
        #expect(grouped.map(\.requirements) == [["REFRESH-SINGLE-FLIGHT"], ["REFRESH-RETRY-ONCE"], ["REFRESH-SINGLE-FLIGHT"],
                                                ["REFRESH-SINGLE-FLIGHT"]])
        #expect(grouped[0].evidence == [3, 9])
        #expect(grouped[3].check == "oracle:single-refresh-in-flight")
    }

    @Test("a single finding keeps all its evidence, however long")
    func singleKeepsEvidence() {
        let grouped = Finding.grouped([Self.finding("two refreshes", [1, 2, 3, 4, 5])])
        #expect(grouped == [Self.finding("two refreshes", [1, 2, 3, 4, 5])])
    }

    @Test("a case's outcome holds grouped findings")
    func outcomeGroups() {
        let outcome = InconclusiveVerdictTests.outcome("c", .fail, requirements: ["REFRESH-SINGLE-FLIGHT"],
                                                       findings: (1...10).map { Self.finding("refresh \($0) overlapped", [$0]) })
        #expect(outcome.findings.count == 1)
        #expect(outcome.findings.first?.occurrences == 10)
    }

    @Test("a client that refreshes on each of 1,000 concurrent 401s gets one grouped finding, not 999")
    func thousandConcurrent() throws {
        let yaml = Harness.caseFile("""
          - id: thousand
            title: 1,000 concurrent 401s share one refresh
            requirements: [REFRESH-SINGLE-FLIGHT]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - fault: { path: /resources/*, kind: expiredToken, times: 1000 }
              - hold: { path: /auth/refresh }
              - request: { resource: feed, count: 1000 }
              - release: { path: /auth/refresh }

        """)
        let (outcome, result) = try Harness.runOne(yaml, .init(defects: [.refreshPerRequest]))
        let oracle = outcome.findings.filter { $0.check == "oracle:single-refresh-in-flight" }
        #expect(oracle.count == 1, "\(Harness.describe(oracle))")
        #expect((oracle.first?.occurrences ?? 0) >= 999)
        #expect((oracle.first?.evidence.count ?? 0) <= 3)
        #expect(outcome.findings.count <= 3, "\(Harness.describe(outcome.findings))")
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: result)?.status == .fail)
    }
}
