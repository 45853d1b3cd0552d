@testable import ConformanceRunner
import Testing

/// Correct clients built another way than the reference pass the real cases as written in Specs/cases: a launch
/// may "validate or refresh the session with the server" (000), and a client may refresh ahead of each
/// server-relative expiry on a timer of its own (CLOCK-SKEW-TOLERANT, as early as half the token's lifetime).
@Suite("correct clients built another way")
struct ClientsBuiltAnotherWayTests {
    /// The outcomes of the case `id` (each trigger variant) of the real case file `file`.
    static func realCase(_ id: String, in file: String, _ configuration: FakeSessionClient.Configuration) throws -> [CaseOutcome] {
        let outcomes = try Harness.run(try Harness.realCaseFile(file), configuration).outcomes.filter { $0.caseID == id || $0.caseID.hasPrefix(id + "[") }
        #expect(!outcomes.isEmpty, "no case \(id) in \(file)")
        return outcomes
    }

    @Test("a launch that refreshes the session it restores, instead of asking GET /me, restarts a sign-out killed before its first write in one session")
    func refreshAtLaunchPasses() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.refreshesAtLaunch = true
        for outcome in try Self.realCase("sign-out-killed-before-its-first-write-restarts-in-one-session", in: "interleavings.yaml", configuration) {
            #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
            // The launch did refresh: the case allows it, it does not just miss it.
            let refreshes = TraceIndex(outcome.trace).exchanges.filter { $0.isRefresh }.count
            #expect(refreshes == 1, "\(Harness.rendered(outcome))")
        }
    }

    @Test("a client that refreshes on its own timer at half the token's lifetime keeps a device clock days behind within the case's bound")
    func halfLifetimeTimerPasses() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.refreshTimer = 150
        for outcome in try Self.realCase("device-clock-days-behind", in: "resilience.yaml", configuration) {
            #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
            let refreshes = TraceIndex(outcome.trace).exchanges.filter { $0.isRefresh }.count
            #expect(refreshes == 4, "\(Harness.rendered(outcome))")
        }
    }
}
