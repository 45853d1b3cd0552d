@testable import ConformanceRunner
import Mutants
import SpecModel
import Testing

/// Guided exploration: runs aimed at the situations earlier runs reached least, deterministic whatever `jobs`,
/// each run replayable alone from its ID.
@Suite("Explore: guided search")
struct GuidedExploreTests {
    @Test("a run aimed at a situation reaches it against the reference in at least 3 of 10 runs", arguments: Situation.allCases)
    func aimReachesItsSituation(_ situation: Situation) throws {
        let explorer = try ExploreTests.explorer()
        let runs = (1...10).map { ExploreRunID(seed: 3, run: $0, focus: .situation(situation)) }
        let reached = runs.filter { explorer.play($0).reached.contains(situation) }.count
        #expect(reached >= 3, "\(situation.rawValue): reached in \(reached) of \(runs.count) aimed runs")
    }

    @Test("a guided exploration finds the same failures in the same runs, with the same coverage, whatever jobs")
    func guidedIsDeterministicAcrossJobs() throws {
        let mutant = try ExploreTests.variant("refresh-per-request")
        let explorer = try ExploreTests.explorer(mutant.make, name: mutant.name)
        let one = explorer.explore(ExploreOptions(seed: 5, runs: 96, jobs: 1, strategy: .guided), now: { 0 })
        let two = explorer.explore(ExploreOptions(seed: 5, runs: 96, jobs: 2, strategy: .guided), now: { 0 })
        #expect(one.runsDone == 96)
        #expect(one.failures.map { "\($0.run) \($0.key)" } == two.failures.map { "\($0.run) \($0.key)" })
        #expect(one.coverage == two.coverage)
        #expect(one.failures.contains { $0.run.focus != nil }, "some failing runs were aimed")
    }

    @Test("a run ID carries its aim: S:K@situation and S:K@path parse, print and replay the same program")
    func runIDCarriesTheAim() throws {
        let run = try #require(ExploreRunID("4:17@kill-during-refresh"))
        #expect(run.focus == .situation(.killDuringRefresh))
        #expect(run.description == "4:17@kill-during-refresh")
        #expect(ExploreRunID("4:17@no-such-situation") == nil)
        #expect(ExploreRunID("4:17")?.focus == nil)
        #expect(run.steps.map(\.flowLine) == ExploreRunID(seed: 4, run: 17, focus: .situation(.killDuringRefresh)).steps.map(\.flowLine))
        #expect(run.steps.map(\.flowLine) != ExploreRunID(seed: 4, run: 17).steps.map(\.flowLine))
        let walked = try #require(ExploreRunID("4:17@retry-refused-again"))
        #expect(walked.focus == .path(.retryRefusedAgain))
        #expect(walked.description == "4:17@retry-refused-again")
        #expect(walked.steps.map(\.flowLine) != run.steps.map(\.flowLine))
    }

    @Test("no requirement path shares a name with a situation, so a run ID names one aim")
    func pathNamesAreNotSituations() {
        let situations = Set(Situation.allCases.map(\.rawValue))
        for path in RequirementPath.allCases { #expect(!situations.contains(path.rawValue), "\(path.rawValue)") }
    }

    /// The variant each path is there for: a defect the situation aims did not find within 300 runs.
    static let pathVariants: [(RequirementPath, String)] = [
        (.lateResponseToNextSession, "no-generation-check-on-responses"),
        (.lateRefreshToNextSession, "no-generation-check-on-refresh-result"),
        (.retryRefusedAgain, "paced-unlimited-retries"),
        (.outageOverTime, "fixed-interval-backoff"),
        (.outageOverTime, "failed-refresh-sticks"),
        (.clockAheadThenBack, "dead-session-after-clock-jump-back"),
        (.killInExpiryRefreshStore, "expiry-refresh-staged-pair-lost"),
        (.restoreRefreshNotStored, "restore-uses-unstored-pair"),
        (.restoreTokenRefusedTwice, "restore-refreshes-again-at-once"),
    ]

    @Test("every requirement path has a variant it finds")
    func everyPathHasItsVariant() {
        #expect(Set(Self.pathVariants.map(\.0)) == Set(RequirementPath.allCases))
    }

    @Test("runs aimed at a requirement path find its variant, charged to the path's requirements, in 20 runs",
          arguments: pathVariants)
    func pathFindsItsVariant(_ path: RequirementPath, _ name: String) throws {
        let mutant = try ExploreTests.variant(name)
        let explorer = try ExploreTests.explorer(mutant.make, name: mutant.name)
        let found = (1...20).contains { run in
            let outcome = explorer.play(ExploreRunID(seed: 3, run: run, focus: .path(path)))
            return outcome.findings.contains { !Set($0.requirements).isDisjoint(with: path.requirements) }
        }
        #expect(found, "\(path.rawValue) did not find \(name) in 20 aimed runs")
    }

    @Test("runs aimed at a requirement path charge the reference with nothing", arguments: RequirementPath.allCases)
    func pathsDoNotChargeTheReference(_ path: RequirementPath) throws {
        let explorer = try ExploreTests.explorer()
        for run in 1...20 {
            let outcome = explorer.play(ExploreRunID(seed: 3, run: run, focus: .path(path)))
            #expect(outcome.findings.isEmpty && outcome.status != .error,
                    "3:\(run)@\(path.rawValue): \(outcome.status) \(outcome.findings.map(\.check))")
        }
    }

    @Test("the next batch aims at what was never reached, then at the rarest quarter")
    func aimsFollowCoverage() {
        #expect(Explorer.aims(coverage: [:]) == Situation.allCases)
        var coverage = Dictionary(uniqueKeysWithValues: Situation.allCases.map { ($0, 10) })
        coverage[.stale401] = 0
        #expect(Explorer.aims(coverage: coverage) == [.stale401])
        coverage[.stale401] = 1
        coverage[.storageLocked] = 2
        let aims = Explorer.aims(coverage: coverage)
        #expect(Array(aims.prefix(2)) == [Situation.stale401, .storageLocked])
        #expect(aims.count == Situation.allCases.count / 4)
    }
}
