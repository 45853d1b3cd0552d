import ConformanceProtocol
@testable import ConformanceRunner
import Testing

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

    @Test("every requirement of the catalogue gets exactly one verdict, in catalogue order")
    func oneVerdictPerRequirement() throws {
        let result = try Self.result()
        let catalogue = try #require(try Harness.bundle(Self.yaml).catalogue)
        #expect(result.requirements.map(\.id) == catalogue.requirements.map(\.id))
    }
}
