import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing

/// `refreshDue` under the `expiry` trigger, for a client that refreshes ahead of expiry on a timer of its own:
/// its refresh starts while the clock moves, not in the next step.
@Suite("refreshDue with a proactive client")
struct ProactiveRefreshDueTests {
    /// The fake arms its timer for 270 s after each pair arrived (the world's tokens live 300 s).
    static let proactive = FakeSessionClient.Configuration(refreshTimer: 270)

    static func context(_ outcome: CaseOutcome) -> String {
        "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))"
    }

    @Test("the clock stops where the client's own refresh started, and the server refuses the older access tokens from then on")
    func clockStopsAtTheOwnRefresh() throws {
        let yaml = Harness.caseFile("""
          - id: a-held-request-meets-a-proactive-refresh
            title: A request held across the client's own refresh is refused and retried with the new token
            requirements: [REFRESH-USE-LATEST-TOKEN]
            triggers: [expiry]
            # The clock's own move at refreshDue, as written: no approach to the expiry before the held request.
            timeouts: true
            steps:
              - launch: {}
              - signIn: { account: alice }
              - require: { state: authenticated }
              - hold: { path: /resources/slow }
              - request: { resource: slow }
              - refreshDue: {}
              - release: { path: /resources/slow }
              - expect: { for: [REFRESH-USE-LATEST-TOKEN], results: { ok: 1 } }

        """)
        let (outcome, _) = try Harness.runOne(yaml, Self.proactive)
        let context = Self.context(outcome)
        #expect(outcome.status == .pass, "\(context)")
        // Not 301 s, one past the first token's expiry: the timer fired at 270 s and the clock stayed there.
        #expect(outcome.trace.events.last?.time == 270, "\(context)")
        let slow = TraceIndex(outcome.trace).exchanges.filter { $0.request.path == "/resources/slow" }
        #expect(slow.map(\.status) == [401, 200], "the held request's token is refused once the new pair exists\n\(context)")
    }

    @Test("a command after a kill point that landed on the client's own refresh is noted as not sent, not an error")
    func commandAfterAnEarlyKillPoint() throws {
        let yaml = Harness.caseFile("""
          - id: killed-at-a-proactive-refresh
            title: Killed as the client stores the pair its own timer refreshed
            requirements: [PROCESS-DEATH-SAFE]
            triggers: [expiry]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - require: { state: authenticated }
              - kill: { at: afterStorageWrite }
              - refreshDue: {}
              - request: { resource: inbox }
              - launch: {}
              - request: { resource: inbox }
              - expect: { for: [PROCESS-DEATH-SAFE], state: authenticated, prompts: 0, results: { ok: 2 } }

        """)
        let (outcome, _) = try Harness.runOne(yaml, Self.proactive)
        let context = Self.context(outcome)
        #expect(outcome.status == .pass, "\(context)")
        #expect(KillPointTests.kills(outcome).first?.hasPrefix("killed after the storage write: secure-storage set of 'session'") == true,
                "\(context)")
        #expect(KillPointTests.notes(outcome).contains("request not sent: the app died at the kill point armed at step 4 and was not launched again"),
                "\(context)")
    }

    @Test("a client that refreshes only when a request finds the token expired still gets the clock moved past the expiry")
    func clockPassesTheExpiryForAClientWithoutTimer() throws {
        let yaml = Harness.caseFile("""
          - id: a-request-after-the-expiry
            title: The request after refreshDue finds every token expired
            requirements: [REFRESH-RETRY-ONCE]
            triggers: [expiry]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - require: { state: authenticated }
              - refreshDue: {}
              - request: { resource: inbox }
              - expect: { for: [REFRESH-RETRY-ONCE], results: { ok: 1 }, requests: [{ path: /auth/refresh, count: 1 }] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(Self.context(outcome))")
        #expect(outcome.trace.events.last?.time == 301)
    }
}
