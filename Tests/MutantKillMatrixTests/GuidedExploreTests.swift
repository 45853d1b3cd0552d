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
        let runs = (1...10).map { ExploreRunID(seed: 3, run: $0, focus: situation) }
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

    @Test("a run ID carries its aim: S:K@situation parses, prints and replays the same program")
    func runIDCarriesTheAim() throws {
        let run = try #require(ExploreRunID("4:17@kill-during-refresh"))
        #expect(run.focus == .killDuringRefresh)
        #expect(run.description == "4:17@kill-during-refresh")
        #expect(ExploreRunID("4:17@no-such-situation") == nil)
        #expect(ExploreRunID("4:17")?.focus == nil)
        #expect(run.steps.map(\.flowLine) == ExploreRunID(seed: 4, run: 17, focus: .killDuringRefresh).steps.map(\.flowLine))
        #expect(run.steps.map(\.flowLine) != ExploreRunID(seed: 4, run: 17).steps.map(\.flowLine))
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
