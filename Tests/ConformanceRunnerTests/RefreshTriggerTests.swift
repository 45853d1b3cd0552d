import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing

/// A refresh-path case is played once per trigger it lists; a trigger the client does not use is skipped, not
/// inconclusive; a requirement passes only on evidence that its behaviour was reached.
@Suite("Refresh triggers and evidence")
struct RefreshTriggerTests {
    static let killedDuringRefresh = Harness.caseFile("""
      - id: killed-mid-refresh
        title: Killed with a refresh on the wire
        requirements: [PROCESS-DEATH-SAFE]
        triggers: [unauthorized, expiry]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - hold: { path: /auth/refresh }
          - refreshDue: {}
          - request: { resource: inbox, count: 2 }
          - require: { under: [unauthorized], requests: [{ path: /resources/*, count: 2 }, { path: /auth/refresh, count: 1 }] }
          - require: { under: [expiry], requests: [{ path: /auth/refresh, count: 1 }] }
          - kill: {}
          - launch: {}
          - release: { path: /auth/refresh }
          - expect: { for: [PROCESS-DEATH-SAFE], state: authenticated, prompts: 0 }

    """)

    @Test("a case with triggers becomes one variant per trigger, each with the steps 'under' keeps for it")
    func variantsPerTrigger() throws {
        let bundle = try Harness.bundle(Self.killedDuringRefresh)
        let variants = bundle.playableCases
        #expect(variants.map(\.id) == ["killed-mid-refresh[unauthorized]", "killed-mid-refresh[expiry]"])
        #expect(variants.map(\.trigger) == [.unauthorized, .expiry])
        #expect(variants.allSatisfy { $0.baseID == "killed-mid-refresh" })
        // Each variant drops the other trigger's require: 12 written steps, 11 played.
        #expect(variants.map(\.steps.count) == [11, 11])
        #expect(CaseSelection.matches(pattern: "killed-mid-refresh", case: variants[1]))
        #expect(CaseSelection.matches(pattern: "*mid*", case: variants[0]))
    }

    @Test("a client that refreshes on a 401 is played and judged under every trigger, each outcome naming its trigger")
    func bothTriggersPlayed() throws {
        let result = try Harness.run(Self.killedDuringRefresh)
        #expect(result.outcomes.map(\.status) == [.pass, .pass], "\(result.outcomes.map { $0.reason ?? "" })")
        #expect(result.outcomes.map(\.trigger) == [.unauthorized, .expiry])
        // Under expiry the clock moved past the token's expiry (300 s + 1); under unauthorized it did not move.
        let notes = result.outcomes.map { outcome in
            outcome.trace.events.compactMap { event -> String? in
                if case .world(let text) = event.kind, text.hasPrefix("refresh due") { return text }
                return nil
            }
        }
        #expect(notes[0] == ["refresh due (unauthorized): the server stops accepting every access token issued so far; the client's clock is not moved"])
        #expect(notes[1] == ["refresh due (expiry): the clock moves 301 s, past the expiry of every access token issued so far"])
        #expect(result.outcomes.allSatisfy { $0.reached.contains(.killDuringRefresh) })
    }

    @Test("a variant whose trigger started no refresh is skipped with the reason, not inconclusive")
    func undeclaredTriggerFoundOut() throws {
        let result = try Harness.run(Self.killedDuringRefresh, .init(defects: [.ignores401]))
        #expect(result.outcomes.map(\.status) == [.skipped, .skipped])
        let reason = try #require(result.outcomes.first?.reason)
        #expect(reason.hasPrefix("refresh trigger not used: the client did not refresh on a 401 for an access token its clock still counted valid (refreshDue, step 5): not one of its refresh triggers; precondition of step"))
        // Unlike a missing capability, a trigger not used never makes the requirement not apply: untested.
        #expect(Harness.verdict("PROCESS-DEATH-SAFE", in: result)?.status == .untested)
    }

    @Test("a variant that runs to its end with no refresh from its trigger is skipped too, charging nothing")
    func undeclaredTriggerFoundOutAtTheEnd() throws {
        let result = try Harness.run(Harness.caseFile("""
          - id: refused-and-retried
            title: A 401 refreshes and retries
            requirements: [REFRESH-RETRY-ONCE]
            triggers: [unauthorized]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - refreshDue: {}
              - request: { resource: inbox }
              - expect: { for: [REFRESH-RETRY-ONCE], results: { ok: 1 } }

        """), .init(defects: [.ignores401]))
        #expect(result.outcomes.map(\.status) == [.skipped])
        #expect(result.outcomes[0].findings.isEmpty)
        #expect(result.outcomes[0].reason?.hasSuffix("not one of its refresh triggers; the case ran to its end") == true)
        #expect(Harness.verdict("REFRESH-RETRY-ONCE", in: result)?.status == .untested)
    }

    @Test("a trigger the adapter declares it does not use is skipped before the variant is played")
    func declaredTriggersSkipTheOthers() throws {
        let result = try Harness.run(Self.killedDuringRefresh, .init(refreshTriggers: ["unauthorized"]))
        #expect(result.outcomes.map(\.status) == [.pass, .skipped])
        #expect(result.outcomes[1].reason == "refresh trigger not used: the adapter declares refreshTriggers [unauthorized], not expiry")
        #expect(result.outcomes[1].trace.events.isEmpty)
    }

    @Test("a declared trigger that started no refresh stays inconclusive, with what the case would have checked")
    func declaredButNotHonoured() throws {
        let result = try Harness.run(Self.killedDuringRefresh, .init(defects: [.ignores401], refreshTriggers: ["unauthorized", "expiry"]))
        #expect(result.outcomes.map(\.status) == [.inconclusive, .inconclusive])
        #expect(result.outcomes[0].wouldHaveChecked == ["step 11 (inline-cases.yaml:20): PROCESS-DEATH-SAFE: state, prompts"])
    }

    @Test("a requirement whose cases pass without reaching its behaviour is untested, naming what was not reached")
    func noPassWithoutEvidence() throws {
        let result = try Harness.run(Harness.caseFile("""
          - id: no-kill-at-all
            title: Names process death but never kills
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - expect: { for: [PROCESS-DEATH-SAFE], state: authenticated }

        """))
        #expect(result.outcomes.map(\.status) == [.pass])
        let verdict = try #require(Harness.verdict("PROCESS-DEATH-SAFE", in: result))
        #expect(verdict.status == .untested)
        #expect(verdict.reason == "no conclusive case showed that the client was killed with a refresh on the wire [kill-during-refresh]; "
                + "nor that it was killed at its storage write after a refresh response (a kill point landed) [kill-at-refresh-store]; "
                + "nor that it was killed at a storage write of a sign-out or account switch (a kill point landed) [kill-during-session-end]")
    }

    @Test("the verdict rule passes a requirement only once every situation it needs was reached")
    func verdictRuleNeedsEverySituation() {
        let covering = [VerdictRule.Covering(id: "a", status: .pass, reason: nil)]
        let needs: [Situation] = [.refreshRejected, .sessionEnded]
        let partly = VerdictRule.decide(level: .must, capability: nil, declared: [], charged: 0, covering: covering,
                                        needs: needs, reached: [.sessionEnded])
        #expect(partly.0 == .untested)
        #expect(partly.1?.contains("[refresh-rejected]") == true)
        #expect(partly.1?.contains("[session-ended]") == false)
        let fully = VerdictRule.decide(level: .must, capability: nil, declared: [], charged: 0, covering: covering,
                                       needs: needs, reached: [.sessionEnded, .refreshRejected])
        #expect(fully.0 == .pass)
        // A finding is evidence enough: a charged requirement fails whatever was reached.
        let charged = VerdictRule.decide(level: .must, capability: nil, declared: [], charged: 1, covering: covering,
                                         needs: needs, reached: [])
        #expect(charged.0 == .fail)
    }
}
