@testable import ConformanceRunner
import SpecModel
import Testing

/// A case never outlives a client's own request deadline unless it is about deadlines (`HeldClockRule`,
/// docs/spec-format.md "Held requests and the clock"): 001 lets a client give up on a request the server does
/// not answer ("Timeouts, 5xx and offline are retryable"), so a client with URLSession's 60 s, OkHttp's 10 s or
/// httpx's 5 s is certified like one with no deadline.
@Suite("held requests and the clock")
struct HeldClockTests {
    /// `late-401-retries-with-the-latest-token` of Specs/cases/refresh.yaml, as written there.
    static func late401(timeouts: Bool = false) -> String {
        Harness.caseFile("""
              - id: late-401
                title: A request refused for an older token is retried with the current one
                requirements: [REFRESH-USE-LATEST-TOKEN]
                triggers: [unauthorized, expiry]
            \(timeouts ? "    timeouts: true\n" : "")    steps:
                  - launch: {}
                  - signIn: { account: alice }
                  - require: { state: authenticated }
                  - hold: { path: /resources/slow }
                  - request: { resource: slow }
                  - refreshDue: {}
                  - request: { resource: fast }
                  - require: { results: { ok: 1 }, requests: [{ path: /auth/refresh, count: 1 }, { path: /resources/slow, count: 1 }] }
                  - release: { path: /resources/slow }
                  - expect:
                      for: [REFRESH-USE-LATEST-TOKEN]
                      results: { ok: 1 }
                      requests: [{ path: /auth/refresh, count: 0 }, { path: /resources/slow, count: 1 }]

            """)
    }

    static func outcomes(_ yaml: String, _ configuration: FakeSessionClient.Configuration) throws -> [String: CaseOutcome] {
        let result = try Harness.run(yaml, configuration)
        return Dictionary(uniqueKeysWithValues: result.outcomes.map { ($0.caseID, $0) })
    }

    @Test("a client with a 60 s or 5 s request deadline passes both variants, and the expiry one still shows a stale 401",
          arguments: [60.0, 5.0])
    func deadlineClientIsCertified(deadline: Double) throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.requestDeadline = deadline
        let outcomes = try Self.outcomes(Self.late401(), configuration)
        for (id, outcome) in outcomes {
            #expect(outcome.status == .pass, "\(id): \(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        }
        let expiry = try #require(outcomes["late-401[expiry]"])
        #expect(expiry.reached.contains(.stale401), "\(Harness.rendered(expiry))")
        // The clock reached the expiry before the request was held, then crossed it in a short step.
        let rendered = Harness.rendered(expiry)
        #expect(rendered.contains("to 2 s short of the access tokens' expiry"))
        #expect(rendered.contains("the clock moves 3 s, past the expiry"))
    }

    @Test("a client whose deadline ends a held request anyway makes the case inconclusive, naming the request, never failed")
    func shortDeadlineIsInconclusive() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.requestDeadline = 2
        let outcomes = try Self.outcomes(Self.late401(), configuration)
        #expect(outcomes["late-401[unauthorized]"]?.status == .pass)
        let expiry = try #require(outcomes["late-401[expiry]"])
        #expect(expiry.status == .inconclusive, "\(Harness.describe(expiry.findings))\n\(Harness.rendered(expiry))")
        #expect(expiry.findings.isEmpty)
        #expect(expiry.unmet == UnmetPrecondition(kind: .abandoned, step: 9, subject: "GET", path: "/resources/slow"))
        #expect(expiry.reason?.contains("gave up on GET /resources/slow on its own deadline") == true, "\(expiry.reason ?? "")")
    }

    @Test("a case marked timeouts moves the clock as written: the held request outlives the deadline and the case goes on")
    func markedCaseKeepsTheLongMove() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.requestDeadline = 60
        let expiry = try #require(try Self.outcomes(Self.late401(timeouts: true), configuration)["late-401[expiry]"])
        #expect(expiry.status == .fail, "\(Harness.rendered(expiry))")
        #expect(!Harness.rendered(expiry).contains("short of the access tokens' expiry"))
    }

    @Test("a client that refreshes ahead of expiry on its own timer skips the expiry variant: nothing expired under the held request")
    func proactiveClientSkipsTheExpiryVariant() throws {
        var configuration = FakeSessionClient.Configuration()
        configuration.refreshTimer = 270
        configuration.requestDeadline = 60
        let outcomes = try Self.outcomes(Self.late401(), configuration)
        #expect(outcomes["late-401[unauthorized]"]?.status == .pass)
        let expiry = try #require(outcomes["late-401[expiry]"])
        #expect(expiry.status == .skipped, "\(Harness.rendered(expiry))")
        #expect(expiry.reason?.contains("refreshed ahead of expiry") == true, "\(expiry.reason ?? "")")
    }

    @Test("the real late-401 case approaches expiry before the held request under expiry, and no real case breaks the rule unmarked")
    func realSpecFollowsTheRule() throws {
        let load = SpecLoader.load(files: try SpecLoader.specFiles(under: Harness.packageRoot + "/Specs"))
        #expect(!load.hasErrors, "\(load.renderer.render(load.diagnostics))")
        let late = try #require(load.bundle.cases.first { $0.id == "late-401-retries-with-the-latest-token" })
        let expiry = try #require(late.variants.first { $0.trigger == .expiry })
        let analysis = HeldClockRule.analyze(expiry.steps, trigger: .expiry)
        #expect(analysis.violations.isEmpty)
        // Before `request: { resource: slow }`, the fifth step.
        #expect(analysis.approaches == [4])
        for variant in load.bundle.cases.flatMap(\.variants) where !variant.timeouts {
            #expect(HeldClockRule.analyze(variant.steps, trigger: variant.trigger).violations.isEmpty, "\(variant.id)")
        }
    }
}

/// `explore` keeps to the rule too: only its deadline scenarios (a refresh the world never answers) move the clock
/// past a held request, and those runs, like the cases shrunk from them, are marked `timeouts`.
@Suite("held requests and the clock: explore")
struct ExploreHeldClockTests {
    @Test("a generated program moves the clock 5 s or more past a held request only in a deadline scenario's long wait")
    func generatedProgramsKeepTheBound() throws {
        var marked = 0, programs = 0
        for seed: UInt64 in 1...3 {
            for run in 1...2_000 {
                let aims = Situation.allCases.map(ExploreAim.situation) + RequirementPath.allCases.map(ExploreAim.path)
                for focus in [nil] + aims.filter({ _ in run % 50 == 0 }) {
                    let steps = ExploreRunID(seed: seed, run: run, focus: focus).steps
                    programs += 1
                    let violations = HeldClockRule.analyze(steps, trigger: nil).violations
                    guard !violations.isEmpty else { continue }
                    marked += 1
                    for violation in violations {
                        guard case .advance(let seconds) = steps[violation.step].action else {
                            Issue.record("run \(seed):\(run) \(focus?.description ?? ""): step \(violation.step + 1) is no advance")
                            continue
                        }
                        #expect(seconds >= 30, "run \(seed):\(run) \(focus?.description ?? ""): an advance of \(seconds) s past \(violation.path)")
                    }
                    #expect(ExploreRunID(seed: seed, run: run, focus: focus).acceptanceCase().timeouts)
                }
            }
        }
        // The deadline scenarios are a small share of the runs.
        #expect(marked * 100 < programs * 15, "\(marked) of \(programs) programs hold a request across a long clock move")
    }

    @Test("the stale-401 aim holds its request while the clock crosses the expiry in under 5 s")
    func stale401AimKeepsTheBound() {
        for run in 1...300 {
            let steps = ExploreRunID(seed: 1, run: run, focus: .situation(.stale401)).steps
            #expect(!ExploreRunID.aboutTimeouts(steps) || steps.contains { if case .advance(let seconds) = $0.action { seconds >= 30 } else { false } },
                    "run 1:\(run)@stale-401")
        }
    }

    @Test("a case shrunk from a deadline scenario says timeouts: true and lints clean; another does not say it")
    func shrunkCaseCarriesTheMark() throws {
        let key = ExploreFailureKey(check: "oracle:no-command-blocked-by-an-unanswered-refresh", requirements: ["REFRESH-RETRYABLE-BACKOFF"])
        func rendered(_ yaml: String) throws -> String {
            let steps = try Harness.bundle(Harness.caseFile(yaml)).cases[0].steps
            return ShrunkCase.render(run: ExploreRunID(seed: 1, run: 1), id: "explore-seed-1-run-1", key: key, steps: steps,
                                     originalCount: 9, replay: "replay", reproduce: "reproduce")
        }
        let long = try rendered("""
              - id: long
                title: t
                requirements: [REFRESH-RETRYABLE-BACKOFF]
                timeouts: true
                steps:
                  - launch: {}
                  - hold: { path: /auth/refresh }
                  - request: { resource: inbox }
                  - advance: { seconds: 1000 }

            """)
        #expect(long.contains("\n    timeouts: true\n    steps:\n"))
        #expect(try Harness.bundle(long).cases[0].timeouts)
        let short = try rendered("""
              - id: short
                title: t
                requirements: [REFRESH-RETRYABLE-BACKOFF]
                steps:
                  - launch: {}
                  - hold: { path: /auth/refresh }
                  - request: { resource: inbox }
                  - advance: { seconds: 4 }

            """)
        #expect(!short.contains("timeouts"))
    }
}
