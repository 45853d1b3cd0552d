import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing

/// SESSION-STATE-MACHINE judges what a transition did (the state left and reached, the generation rule, what
/// caused it), not the name a client reports: an old name, an alias or a name of its own passes, and so does a
/// client that never shows an optional transition's state; a wrong state or a broken generation rule still fails.
@Suite("transitions are judged by what they do, not by their names")
struct TransitionBehaviourTests {
    typealias Reporting = FakeSessionClient.Reporting

    static let signOutWhileRestoring = Harness.caseFile("""
      - id: sign-out-while-restoring-by-any-name
        title: A sign-out while the stored session is restoring ends it, whatever the client calls the transition
        requirements: [SESSION-STATE-MACHINE, SIGNOUT-BLOCK-AND-CLEAR]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - kill: {}
          - hold: { path: /me }
          - launch: {}
          - require: { state: restoring, requests: [{ path: /me, count: 1 }] }
          - signOut: {}
          - expect: { for: [SESSION-STATE-MACHINE], state: signedOut, transitions: [restore-sign-out], prompts: 1 }
          - release: { path: /me }
          - expect: { for: [SESSION-STATE-MACHINE], state: signedOut, transitions: [] }
          - expect: { for: [SIGNOUT-BLOCK-AND-CLEAR], tokensStored: false }

    """)

    /// Refreshes that succeed (one waiting, then two held together) and one the server rejects, each checked as
    /// the suite's cases check them.
    static let refreshes = Harness.caseFile("""
      - id: refreshes-by-any-path
        title: Refreshes succeed and one is rejected, whether or not the client shows refreshing
        requirements: [SESSION-STATE-MACHINE, REFRESH-ONLY-REJECTION-SIGNS-OUT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - require: { state: authenticated }
          - fault: { path: /resources/*, kind: expiredToken }
          - request: { resource: inbox }
          - expect: { for: [SESSION-STATE-MACHINE], state: authenticated, transitions: [refresh-started, refresh-succeeded], results: { ok: 1 } }
          - fault: { path: /resources/*, kind: expiredToken, times: 2 }
          - hold: { path: /auth/refresh }
          - request: { resource: inbox, count: 2 }
          - require: { requests: [{ path: /auth/refresh, count: 1 }] }
          - expect: { for: [SESSION-STATE-MACHINE], state: refreshing, transitions: [refresh-started] }
          - release: { path: /auth/refresh }
          - expect: { for: [SESSION-STATE-MACHINE], state: authenticated, results: { ok: 2 } }
          - fault: { path: /resources/*, kind: expiredToken }
          - fault: { path: /auth/refresh, kind: invalidGrant }
          - request: { resource: inbox }
          - require: { requests: [{ path: /auth/refresh, count: 1 }] }
          - expect: { for: [SESSION-STATE-MACHINE], state: signedOut, transitions: [refresh-started, refresh-rejected], prompts: 1 }

    """)

    static let signIns = Harness.caseFile("""
      - id: sign-ins-by-any-path
        title: A refused sign-in, then one that succeeds, whether or not the client shows signingIn
        requirements: [SESSION-STATE-MACHINE]
        steps:
          - launch: {}
          - require: { state: signedOut }
          - signIn: { email: "alice@example.com", password: "wrong but long enough" }
          - expect: { for: [SESSION-STATE-MACHINE], state: signedOut, transitions: [sign-in-started, sign-in-failed] }
          - signIn: { account: alice }
          - expect: { for: [SESSION-STATE-MACHINE], state: authenticated, transitions: [sign-in-started, sign-in-succeeded] }

    """)

    static func outcome(_ yaml: String, _ reporting: Reporting = .init(),
                        defects: Set<FakeSessionClient.Defect> = []) throws -> CaseOutcome {
        try Harness.runOne(yaml, .init(defects: defects, reporting: reporting)).outcome
    }

    static func expectPass(_ yaml: String, _ reporting: Reporting, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = try outcome(yaml, reporting)
        #expect(outcome.status == .pass && outcome.findings.isEmpty,
                "\(outcome.status) \(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))",
                sourceLocation: sourceLocation)
    }

    /// The findings of the oracle transitions-follow-state-machine charged to `requirement`.
    static func charged(_ outcome: CaseOutcome, _ requirement: String) -> [Finding] {
        outcome.findings.filter { $0.check == "oracle:transitions-follow-state-machine" && $0.requirements == [requirement] }
    }

    // MARK: Names

    @Test("a sign-out while restoring passes whether reported as restore-sign-out, by its old name restore-failed, as sign-out or by a name of the client's own",
          arguments: ["restore-sign-out", "restore-failed", "sign-out", "restore-ended-by-user"])
    func signOutWhileRestoringPassesByAnyName(name: String) throws {
        try Self.expectPass(Self.signOutWhileRestoring, Reporting(names: ["restore-sign-out": name]))
    }

    @Test("a rejected refresh reported as sign-out, with refreshing never shown, is the rejection the server sent")
    func rejectionReportedAsSignOutPasses() throws {
        try Self.expectPass(Self.refreshes, Reporting(names: ["refresh-rejected": "sign-out"], unshown: ["refresh-started"]))
    }

    @Test("an unknown name whose states and generation fit exactly one transition is that transition")
    func unknownNameFittingOneTransitionPasses() throws {
        try Self.expectPass(TransitionsFollowStateMachineTests.yaml, Reporting(names: ["sign-in-succeeded": "sign-in-completed"]))
    }

    // MARK: Optional transitions

    @Test("a client that never shows refreshing passes: its refreshes succeed silently and its rejection goes from authenticated")
    func refreshWithoutRefreshingPasses() throws {
        try Self.expectPass(Self.refreshes, Reporting())
        try Self.expectPass(Self.refreshes, Reporting(unshown: ["refresh-started"]))
    }

    @Test("a client that never shows signingIn passes: a refused sign-in reports nothing, a successful one goes from signedOut")
    func signInWithoutSigningInPasses() throws {
        try Self.expectPass(Self.signIns, Reporting())
        try Self.expectPass(Self.signIns, Reporting(unshown: ["sign-in-started"]))
        try Self.expectPass(TransitionsFollowStateMachineTests.yaml, Reporting(unshown: ["sign-in-started"]))
    }

    // MARK: What still fails

    @Test("a rejection that keeps the generation fails EPOCH-INCREMENT, refreshing shown or not",
          arguments: [Reporting(), Reporting(unshown: ["refresh-started"])])
    func rejectionKeepingTheGenerationFails(reporting: Reporting) throws {
        let outcome = try Self.outcome(Self.refreshes, reporting, defects: [.keepsGenerationOnRejection])
        let finding = try #require(Self.charged(outcome, "EPOCH-INCREMENT").first, "\(Harness.describe(outcome.findings))")
        #expect(OracleCheck.transition(finding.evidence[0], in: outcome)?.transition == "refresh-rejected")
        #expect(finding.message.contains("'refresh-rejected'") && finding.message.contains("must increment"))
    }

    @Test("a sign-in that keeps the generation fails SIGNIN-NEW-GENERATION though signingIn is never shown")
    func signInKeepingTheGenerationFails() throws {
        let outcome = try Self.outcome(Self.signIns, Reporting(unshown: ["sign-in-started"]), defects: [.keepsGenerationOnSignIn])
        #expect(!Self.charged(outcome, "SIGNIN-NEW-GENERATION").isEmpty, "\(Harness.describe(outcome.findings))")
    }

    @Test("a sign-in that reaches the wrong state fails SESSION-STATE-MACHINE, whatever its name",
          arguments: [Reporting(), Reporting(unshown: ["sign-in-started"])])
    func signInReachingTheWrongStateFails(reporting: Reporting) throws {
        let outcome = try Self.outcome(Self.signIns, reporting, defects: [.signInReachesRefreshing])
        let finding = try #require(Self.charged(outcome, "SESSION-STATE-MACHINE").first, "\(Harness.describe(outcome.findings))")
        #expect(finding.message.contains("to 'refreshing'") && finding.message.contains("no transition of the state machine does"))
        #expect(outcome.findings.contains { $0.check == "expect" && $0.message.contains("expected state 'authenticated'") })
    }

    @Test("a sign-out on a 503 reported as sign-out with refreshing never shown still fails REFRESH-ONLY-REJECTION-SIGNS-OUT")
    func signOutOn503ByAnyNameFails() throws {
        let outcome = try Self.outcome(OnlyExplicitRejectionSignsOutTests.serverError,
                                       Reporting(names: ["refresh-rejected": "sign-out"], unshown: ["refresh-started"]),
                                       defects: [.signsOutOnServerError])
        #expect(outcome.findings.contains {
            $0.check == "oracle:only-explicit-rejection-signs-out" && $0.requirements == ["REFRESH-ONLY-REJECTION-SIGNS-OUT"]
        }, "\(Harness.describe(outcome.findings))")
    }
}

/// `TransitionResolution` on crafted traces: aliases, causes and skipped optional transitions.
@Suite("transition resolution")
struct TransitionResolutionTests {
    /// The real machine; `aliased`: with `refresh-postponed` as an old name of `refresh-deferred`.
    static func machine(aliased: Bool = false) throws -> StateMachine {
        let bundle = try Harness.bundle(placeholder, editingStateMachine: {
            aliased ? $0.replacingOccurrences(of: "  - id: refresh-deferred\n", with: "  - id: refresh-deferred\n    aliases: [refresh-postponed]\n") : $0
        })
        return try #require(bundle.stateMachine)
    }

    static let placeholder = Harness.caseFile("""
      - id: placeholder
        title: A case so the spec loads
        requirements: [SESSION-STATE-MACHINE]
        steps:
          - launch: {}

    """)

    /// A process that launched, signed in (generation 2) and reported `steps`: (name, from, to, generation).
    static func trace(_ steps: [(String?, String, Int)], commands: [AppCommand] = [],
                      rejection: Bool = false) -> Trace {
        var crafted = CraftedTrace()
        func report(_ name: String?, from: String?, to: String, _ generation: Int) {
            crafted.add(.received(.transition(TransitionEvent(transition: name, from: from, to: to, account: "acct-alice",
                                                              generation: generation, reason: nil))))
        }
        report(nil, from: nil, to: "restoring", 1)
        report("restore-failed", from: "restoring", to: "signedOut", 2)
        report("sign-in-succeeded", from: "signedOut", to: "authenticated", 3)
        for command in commands { crafted.add(.sent(.command(command))) }
        if rejection {
            crafted.add(.received(.http(id: "e1", cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh",
                                                                                 body: ["refresh_token": "rt"]))))
            crafted.add(.sent(.reply(id: "e1", .response(HTTPResponseMessage(status: 400, body: ["error": "invalid_grant"])))))
        }
        var state = "authenticated"
        for (name, to, generation) in steps {
            report(name, from: state, to: to, generation)
            state = to
        }
        return crafted.trace
    }

    static func resolved(_ trace: Trace, aliased: Bool = false) throws -> [TraceIndex.Transition] {
        Array(TraceIndex(trace, machine: try machine(aliased: aliased)).transitions.dropFirst(3))
    }

    @Test("an alias names its transition; without the alias an unknown name that fits two transitions stays unresolved, and is no finding")
    func aliasNamesItsTransition() throws {
        let steps: [(String?, String, Int)] = [("refresh-started", "refreshing", 3), ("refresh-postponed", "authenticated", 3)]
        let withAlias = try Self.resolved(Self.trace(steps), aliased: true)
        #expect(withAlias.map(\.message.transition) == ["refresh-started", "refresh-deferred"])
        #expect(withAlias.last?.reported == "refresh-postponed")
        let without = try Self.resolved(Self.trace(steps))
        #expect(without.last?.message.transition == "refresh-postponed" && without.last?.path == nil)
        let machine = try Self.machine()
        let context = OracleContext(index: TraceIndex(Self.trace(steps), machine: machine), trace: Self.trace(steps),
                                    world: World(seed: 7), machine: machine,
                                    capabilities: [], offlineResources: [], capturedLog: "")
        #expect(TransitionsFollowStateMachine().check(context).isEmpty)
    }

    @Test("the cause picks among transitions that do the same: the user's pending sign-out, the server's rejection, else the name")
    func causePicksTheTransition() throws {
        let signOut = AppCommand(id: "c9", kind: .signOut)
        let asked = try Self.resolved(Self.trace([("refresh-started", "refreshing", 3), ("refresh-rejected", "signedOut", 4)],
                                                 commands: [signOut]))
        #expect(asked.last?.message.transition == "sign-out-during-refresh")
        let rejected = try Self.resolved(Self.trace([("sign-out", "signedOut", 4)], rejection: true))
        #expect(rejected.last?.message.transition == "refresh-rejected")
        #expect(rejected.last?.path?.skipped?.id == "refresh-started")
        let unexplained = try Self.resolved(Self.trace([("sign-out", "signedOut", 4)]))
        #expect(unexplained.last?.message.transition == "sign-out" && unexplained.last?.path?.skipped == nil)
    }

    @Test("what no transition does keeps its reported name and no path")
    func unexplainedBehaviourIsUnresolved() throws {
        let kept = try Self.resolved(Self.trace([("sign-out", "signedOut", 3)]))
        #expect(kept.last?.message.transition == "sign-out" && kept.last?.path == nil)
        let nowhere = try Self.resolved(Self.trace([("refresh-started", "signingIn", 3)]))
        #expect(nowhere.last?.path == nil)
    }
}
