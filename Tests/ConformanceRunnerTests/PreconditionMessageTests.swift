import ConformanceRunner
import Testing

@Suite("Precondition and count messages")
struct PreconditionMessageTests {
    /// Step 3 (file line 10) requires a refresh the fake client, just launched and signed in, never sent.
    static let noRefreshYet = Harness.caseFile("""
      - id: requires-a-refresh
        title: Requires a refresh that never happens
        requirements: [REFRESH-SINGLE-FLIGHT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { requests: [{ path: /auth/refresh, atLeast: 1 }] }
          - expect: { for: [REFRESH-SINGLE-FLIGHT], requests: [{ path: /auth/refresh, count: 1 }] }

    """)

    @Test("an unmet precondition names its case file and line, and a count of one is singular")
    func fileLineAndSingular() throws {
        let (outcome, _) = try Harness.runOne(Self.noRefreshYet)
        #expect(outcome.status == .inconclusive)
        #expect(outcome.reason == "precondition of step 3 (inline-cases.yaml:10) did not hold: expected at least 1 request to /auth/refresh, got 0")
        #expect(outcome.wouldHaveChecked == ["step 4 (inline-cases.yaml:11): REFRESH-SINGLE-FLIGHT: requests"])
    }
}
