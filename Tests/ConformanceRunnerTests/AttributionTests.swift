import ConformanceProtocol
@testable import ConformanceRunner
import Testing

/// Every `expect` is charged to the requirements it names with `for`, a `require` that does not hold stops the
/// case without charging anything, and consecutive checks share one window: what happened since the previous
/// group of checks.
@Suite("attribution by check, preconditions and check windows")
struct AttributionTests {
    static let oneFailingExpect = Harness.caseFile("""
      - id: two-expects-one-fails
        title: Two requirements, each with its own expect; only the second expect fails
        requirements: [SIGNIN-VALIDATE-INPUT, SIGNIN-NEW-GENERATION]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], requests: [{ path: /auth/login, count: 1 }] }
          - signIn: { email: "not-an-email", password: "long enough secret" }
          - expect: { for: [SIGNIN-NEW-GENERATION], state: signedOut }

    """)

    @Test("an expect's failure is charged to its for requirements only; another requirement of the case passes")
    func failureChargedToItsForOnly() throws {
        let (outcome, result) = try Harness.runOne(Self.oneFailingExpect)
        #expect(outcome.status == .fail)
        #expect(outcome.findings.count == 1, "\(Harness.describe(outcome.findings))")
        let finding = try #require(outcome.findings.first)
        #expect(finding.requirements == ["SIGNIN-NEW-GENERATION"])
        #expect(finding.check == "expect")
        #expect(finding.message == "expected state 'signedOut', the client is in 'authenticated'")
        #expect(outcome.requirements == ["SIGNIN-VALIDATE-INPUT", "SIGNIN-NEW-GENERATION"])
        #expect(Harness.verdict("SIGNIN-NEW-GENERATION", in: result)?.status == .fail)
        let other = try #require(Harness.verdict("SIGNIN-VALIDATE-INPUT", in: result))
        #expect(other.status == .pass)
        #expect(other.findings.isEmpty)
    }

    // MARK: Preconditions

    /// Step 2 (file line 9) requires a state the client is not in; the expect after it would fail if it ran.
    static let unmetPrecondition = Harness.caseFile("""
      - id: precondition-unmet
        title: Requires a session that was never signed in
        requirements: [SIGNIN-NEW-GENERATION]
        steps:
          - launch: {}
          - require: { state: authenticated }
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-NEW-GENERATION], state: signedOut }

    """)

    @Test("a failing require makes the case inconclusive with the precondition in the reason, and charges nothing")
    func unmetRequireIsInconclusive() throws {
        let (outcome, _) = try Harness.runOne(Self.unmetPrecondition)
        #expect(outcome.status == .inconclusive, "\(Harness.describe(outcome.findings))")
        #expect(outcome.reason == "precondition of step 2 (inline-cases.yaml:9) did not hold: expected state 'authenticated', the client is in 'signedOut'")
        #expect(outcome.findings.isEmpty, "\(Harness.describe(outcome.findings))")
        #expect(!TraceIndex(outcome.trace).exchanges.contains { $0.request.path == "/auth/login" },
                "the steps after the precondition must not run")
    }

    @Test("the requirements of a case stopped by its precondition are untested with the reason, not pass")
    func unmetRequireLeavesRequirementsUntested() throws {
        let (outcome, result) = try Harness.runOne(Self.unmetPrecondition)
        let verdict = try #require(Harness.verdict("SIGNIN-NEW-GENERATION", in: result))
        #expect(verdict.status == .untested)
        #expect(verdict.reason == "every covering case was inconclusive: precondition-unmet: \(outcome.reason ?? "")")
        #expect(verdict.findings.isEmpty)
        #expect(verdict.cases.map(\.status) == [.inconclusive])
    }

    static let requireAfterFailedExpect = Harness.caseFile("""
      - id: require-after-a-failure
        title: An expect fails, then a precondition of the rest of the case does not hold
        requirements: [SIGNIN-NEW-GENERATION, SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-NEW-GENERATION], state: signedOut }
          - signOut: {}
          - require: { state: authenticated }
          - signIn: { email: "not-an-email", password: "long enough secret" }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], results: { codes: { invalidInput: 1 } } }

    """)

    @Test("a require failing after an expect failed: the case fails, keeps the finding, and covers only what earlier expects verified")
    func requireAfterFailedExpect() throws {
        let (outcome, result) = try Harness.runOne(Self.requireAfterFailedExpect)
        #expect(outcome.status == .fail)
        #expect(outcome.reason == "precondition of step 5 (inline-cases.yaml:12) did not hold: expected state 'authenticated', the client is in 'signedOut'")
        #expect(outcome.findings.map(\.requirements) == [["SIGNIN-NEW-GENERATION"]], "\(Harness.describe(outcome.findings))")
        #expect(outcome.findings.first?.message == "expected state 'signedOut', the client is in 'authenticated'")
        #expect(outcome.requirements == ["SIGNIN-NEW-GENERATION"])
        #expect(Harness.verdict("SIGNIN-NEW-GENERATION", in: result)?.status == .fail)
        let later = try #require(Harness.verdict("SIGNIN-VALIDATE-INPUT", in: result))
        #expect(later.status == .untested, "only the step after the unmet precondition would have verified it")
        #expect(later.cases.isEmpty)
        #expect(later.reason == "no case covers it yet")
    }

    // MARK: Windows

    static let consecutiveChecks = Harness.caseFile("""
      - id: consecutive-checks
        title: A require and two expects in a row all see the sign-in
        requirements: [SIGNIN-NEW-GENERATION, SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { requests: [{ path: /auth/login, count: 1 }] }
          - expect: { for: [SIGNIN-NEW-GENERATION], state: authenticated, results: { ok: 2 } }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], requests: [{ path: /auth/login, count: 1 }], results: { ok: 2 } }

    """)

    @Test("consecutive checks share one window: the second expect in a row sees what happened before the first")
    func consecutiveChecksShareAWindow() throws {
        let (outcome, _) = try Harness.runOne(Self.consecutiveChecks)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))")
        #expect(outcome.findings.isEmpty, "\(Harness.describe(outcome.findings))")
    }

    @Test("an expect right after another cannot pass on an empty window: a count of zero sees the earlier request")
    func noVacuousEmptyWindow() throws {
        let yaml = Harness.caseFile("""
          - id: no-vacuous-window
            title: The second expect in a row claims there was no login, but there was one
            requirements: [SIGNIN-NEW-GENERATION, SIGNIN-VALIDATE-INPUT]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - expect: { for: [SIGNIN-NEW-GENERATION], state: authenticated }
              - expect: { for: [SIGNIN-VALIDATE-INPUT], requests: [{ path: /auth/login, count: 0 }] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .fail)
        let finding = try #require(outcome.findings.first, "the second expect saw an empty window")
        #expect(outcome.findings.count == 1)
        #expect(finding.requirements == ["SIGNIN-VALIDATE-INPUT"])
        #expect(finding.message == "expected 0 requests to /auth/login, got 1")
        #expect(OracleCheck.request(finding.evidence.first ?? 0, in: outcome)?.path == "/auth/login")
    }

    static let successiveWindows = Harness.caseFile("""
      - id: successive-windows
        title: Each expect counts only what happened since the previous group of checks
        requirements: [SIGNIN-NEW-GENERATION, SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - expect: { for: [SIGNIN-NEW-GENERATION], requests: [{ path: /auth/login, count: 1 }], results: { ok: 2 } }
          - signIn: { email: "not-an-email", password: "long enough secret" }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], results: { ok: 0, failed: 1 }, requests: [{ path: /auth/login, count: 0 }] }
          - request: { resource: inbox }
          - expect:
              for: [SIGNIN-NEW-GENERATION]
              results: { ok: 1, failed: 0 }
              requests: [{ path: /auth/*, count: 0 }, { path: /resources/inbox, count: 1 }]

    """)

    @Test("an expect counts only its own window: events before the previous check group are not counted")
    func expectCountsOnlyItsWindow() throws {
        let (outcome, _) = try Harness.runOne(Self.successiveWindows)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(outcome.findings.isEmpty, "\(Harness.describe(outcome.findings))")
    }
}
