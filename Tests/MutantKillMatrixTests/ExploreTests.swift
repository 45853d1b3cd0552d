import ConformanceProtocol
import ConformanceRunner
import Foundation
import LongTests
import Mutants
import SpecModel
import POSIXSync
import Testing

/// `explore`: generated runs are deterministic, shards split the run space exactly, and a known-bad variant is
/// found, shrunk to a short case, and that case reproduces the failure through the suite runner.
@Suite("Explore: generated runs, replay, shards and shrinking")
struct ExploreTests {
    static func explorer(_ make: @escaping @Sendable () -> any InProcessClient = MutantRegistry.reference,
                         name: String = "reference") throws -> Explorer {
        let machine = try #require(try KillMatrixTests.bundle().stateMachine)
        return try Explorer(machine: machine, launcher: InProcessLauncher(description: name, make: make))
    }

    static func rendered(_ outcome: CaseOutcome) -> String {
        TraceRenderer(vault: outcome.vault).render(outcome.trace)
    }

    @Test("the same run gives the same trace and findings 100 times out of 100, schedule choices included")
    func sameSeedSameTrace() throws {
        let explorer = try Self.explorer()
        // A run whose program has a schedule step and overlapping requests, so the schedule's choices matter.
        let run = try #require((1...200).lazy.map { ExploreRunID(seed: 7, run: $0) }.first { run in
            let steps = run.steps
            return steps.contains { if case .schedule(let s) = $0.action { s.delayPercent > 0 } else { false } }
                && steps.contains { if case .request(_, let count) = $0.action { count > 2 } else { false } }
        })
        let first = explorer.play(run)
        let trace = Self.rendered(first)
        #expect(trace.contains("step 1: schedule"))
        for _ in 1..<100 {
            let again = explorer.play(run)
            #expect(Self.rendered(again) == trace)
            #expect(again.findings == first.findings)
        }
    }

    @Test("a schedule step changes the order of replies in a batch; without one the order is canonical")
    func scheduleChangesOrder() throws {
        let explorer = try Self.explorer()
        func trace(_ schedule: String?) throws -> String {
            let kinds: [(String, [(key: String, value: String)])] = (schedule.map { [("schedule", [("seed", $0), ("delay", "50")])] } ?? [])
                + [("launch", []), ("signIn", [("account", "alice")]), ("request", [("resource", "inbox"), ("count", "3")]),
                   ("request", [("resource", "feed"), ("count", "3")])]
            let steps = try kinds.map { try #require(CaseStep.building($0.0, $0.1)) }
            let run = ExploreRunID(seed: 1, run: 1)
            return Self.rendered(explorer.play(run.acceptanceCase(steps: steps), seed: 1))
                .split(separator: "\n").filter { $0.contains("\"type\":\"reply\"") }
                .map { $0.drop { $0 != ">" } }.joined(separator: "\n")
        }
        let canonical = try trace(nil)
        let scheduled = try (1...5).map { try trace(String($0)) }
        #expect(scheduled.contains { $0 != canonical })
        #expect(try trace("3") == trace("3"))
    }

    @Test("shards of the run space are disjoint and together are every run")
    func shardsPartitionTheRuns() throws {
        for count in 1...6 {
            var seen: [Int] = []
            for index in 1...count {
                let shard = try #require(ExploreShard(index: index, count: count))
                let runs = Array(shard.runs(upTo: 97))
                #expect(runs.allSatisfy { shard.contains(run: $0) })
                seen += runs
            }
            #expect(seen.sorted() == Array(1...97))
        }
        #expect(ExploreShard(index: 0, count: 2) == nil)
        #expect(ExploreShard(index: 3, count: 2) == nil)
    }

    @Test("a sharded random exploration plays exactly the runs of the unsharded one")
    func shardedExplorationCoversTheSameRuns() throws {
        // Random: a guided shard aims its runs from its own coverage, so only its unaimed half is the whole's.
        let explorer = try Self.explorer()
        let whole = explorer.explore(ExploreOptions(seed: 3, runs: 40, jobs: 2, strategy: .random), now: { 0 })
        let parts = (1...3).map {
            explorer.explore(ExploreOptions(seed: 3, runs: 40, jobs: 1, strategy: .random, shard: ExploreShard(index: $0, count: 3)), now: { 0 })
        }
        #expect(parts.map(\.runsDone).reduce(0, +) == whole.runsDone)
        #expect(parts.map(\.passed).reduce(0, +) == whole.passed)
        #expect(parts.map(\.inconclusive).reduce(0, +) == whole.inconclusive)
    }

    @Test("replaying run K of seed S gives the run explore played: the same trace and findings")
    func replayReproduces() throws {
        let explorer = try Self.explorer(Self.variant("refresh-per-request").make, name: "refresh-per-request")
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 60, jobs: 2), now: { 0 })
        let failure = try #require(result.failures.first)
        let replayed = explorer.play(try #require(ExploreRunID(failure.run.description)))
        #expect(Self.rendered(replayed) == Self.rendered(failure.outcome))
        #expect(replayed.findings == failure.outcome.findings)
    }

    static func variant(_ name: String) throws -> Mutant { try #require(MutantRegistry.named(name)) }

    @Test("shrinking told to stop keeps the smallest failing case found so far and says it is not minimal")
    func shrinkingStopsWithTheBestSoFar() throws {
        let mutant = try Self.variant("refresh-per-request")
        let explorer = try Self.explorer(mutant.make, name: mutant.name)
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 60, jobs: 1), now: { 0 })
        let failure = try #require(result.failures.first { $0.key.requirements.contains("REFRESH-SINGLE-FLIGHT") })
        let id = failure.run.caseID + "-" + failure.key.slug
        let whole = try #require(Shrinker(explorer: explorer).shrink(failure.run, id: id, steps: failure.run.steps, failing: failure.key))
        #expect(whole.minimal)
        var stopped = Shrinker(explorer: explorer)
        let asked = Locked(0)
        stopped.shouldStop = { asked.takeNext() + 1 > 3 }
        let cut = try #require(stopped.shrink(failure.run, id: id, steps: failure.run.steps, failing: failure.key))
        #expect(!cut.minimal)
        #expect(cut.plays == 4, "the first play is always made, then three more before the stop")
        #expect(cut.steps.count <= failure.run.steps.count)
        #expect(cut.steps.count >= whole.steps.count)
        let text = ShrunkCase.render(run: failure.run, id: id, key: failure.key, steps: cut.steps, originalCount: failure.run.steps.count,
                                     minimal: cut.minimal, replay: "replay", reproduce: "reproduce")
        #expect(text.hasPrefix("# Found by session-conformance explore: run \(failure.run.run) of seed 1, shrunk from "
                               + "\(failure.run.steps.count) steps to \(cut.steps.count), not minimal: shrinking stopped at the time budget.\n"))
    }

    /// Variants that exploration finds and shrinks; the first two by default, all with the long tests.
    static let shrunkVariants = [("refresh-per-request", "REFRESH-SINGLE-FLIGHT"), ("no-request-deadline", "REFRESH-RETRYABLE-BACKOFF"),
                                 ("token-in-log", "LOG-NO-TOKEN-VALUES"),
                                 ("sign-out-on-any-refresh-failure", "REFRESH-ONLY-REJECTION-SIGNS-OUT"),
                                 ("sign-out-leaves-requests-in-flight", "SIGNOUT-BLOCK-AND-CLEAR"),
                                 ("forget-offline-revocation", "SIGNOUT-REVOCATION-RETRY")]

    @Test("a known-bad variant is found by its oracle, shrunk to at most 10 steps, and the case file reproduces it",
          arguments: shrunkVariants.prefix(2))
    func variantFoundAndShrunk(_ name: String, _ requirement: String) throws {
        let mutant = try Self.variant(name)
        let explorer = try Self.explorer(mutant.make, name: name)
        let result = explorer.explore(ExploreOptions(seed: 1, runs: 300, jobs: 2), now: { 0 })
        let failure = try #require(result.failures.first { $0.key.requirements.contains(requirement) && $0.key.check.hasPrefix("oracle:") },
                                   "not found in 300 runs: \(result.failures.map(\.key))")
        let id = failure.run.caseID + "-" + failure.key.slug
        let (steps, _, _) = try #require(Shrinker(explorer: explorer).shrink(failure.run, id: id, steps: failure.run.steps, failing: failure.key))
        #expect(steps.count <= 10, "\(steps.map(\.flowLine).joined(separator: "\n"))")

        // The case file, loaded as `run --spec-root` loads it, and played by the suite runner.
        let text = ShrunkCase.render(run: failure.run, id: id, key: failure.key, steps: steps, originalCount: failure.run.steps.count,
                                     replay: "replay", reproduce: "reproduce")
        var load = SpecLoadResult()
        SpecLoader.load(bytes: Array(text.utf8), file: "\(id).yaml", into: &load)
        #expect(load.diagnostics.isEmpty, "\(load.renderer.render(load.diagnostics))")
        let caseFile = try #require(load.bundle.caseFiles.first)
        #expect(caseFile.cases.first?.steps.count == steps.count)
        var bundle = try KillMatrixTests.bundle()
        bundle.caseFiles = [caseFile]
        let run = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: name, make: mutant.make))
            .run(RunOptions(seed: failure.run.seed))
        let outcome = try #require(run.outcomes.first)
        #expect(ExploreFailureKey.of(outcome).contains(failure.key), "\(outcome.status) \(outcome.findings.map(\.check))")
    }

    @Test("the other known-bad variants are found by their oracles, shrunk, and reproduced too",
          .long, arguments: shrunkVariants.dropFirst(2))
    func otherVariantsFoundAndShrunk(_ name: String, _ requirement: String) throws {
        try variantFoundAndShrunk(name, requirement)
    }

    /// Found within a few runs each: a defect of SessionKit and a port of the platform guide's naive code.
    static let quicklyFound = ["token-in-log", "naive-ios"]

    @Test("a known-bad variant is found within 10,000 generated runs by the oracle of one of its expected requirements",
          arguments: quicklyFound)
    func variantFoundByExploration(_ name: String) throws {
        let mutant = try Self.variant(name)
        let explorer = try Self.explorer(mutant.make, name: name)
        let found = explorer.first(failing: mutant.expected, ExploreOptions(seed: 1, runs: 10_000, jobs: 2))
        let finding = try #require(found, "\(name) not found in 10,000 runs of seed 1")
        #expect(finding.key.check.hasPrefix("oracle:"))
        #expect(!Set(finding.key.requirements).isDisjoint(with: mutant.expected))
        // The run found is the lowest one: playing it again shows the same failure.
        #expect(ExploreFailureKey.of(explorer.play(finding.run)).contains(finding.key))
    }

    @Test("every other known-bad variant is found within 10,000 generated runs the same way",
          .long, arguments: LongTests.rest(of: MutantRegistry.all.map(\.name), without: quicklyFound))
    func everyVariantFoundByExploration(_ name: String) throws {
        try variantFoundByExploration(name)
    }

    @Test("the search stops at the lowest run that shows the failure, whatever the number of jobs")
    func searchFindsTheLowestRun() throws {
        // Found after a few dozen runs: more than one batch, and every earlier run played again below.
        let mutant = try Self.variant("sign-out-leaves-requests-in-flight")
        let explorer = try Self.explorer(mutant.make, name: mutant.name)
        let one = try #require(explorer.first(failing: mutant.expected, ExploreOptions(seed: 1, runs: 2_000, jobs: 1)))
        let two = try #require(explorer.first(failing: mutant.expected, ExploreOptions(seed: 1, runs: 2_000, jobs: 2)))
        #expect(one.run == two.run)
        try #require(one.run.run > 1)
        let earlier = explorer.explore(ExploreOptions(seed: 1, runs: one.run.run - 1, jobs: 2), now: { 0 })
        #expect(!earlier.failures.contains { $0.key.check.hasPrefix("oracle:") && !Set($0.key.requirements).isDisjoint(with: mutant.expected) })
    }

    @Test("200 generated runs against the reference find no failure")
    func referencePassesExploration() throws {
        try Self.referencePasses(runs: 200)
    }

    @Test("2,000 generated runs against the reference find no failure", .long)
    func referencePassesLongExploration() throws {
        try Self.referencePasses(runs: 2_000)
    }

    static func referencePasses(runs: Int) throws {
        let explorer = try Self.explorer()
        let result = explorer.explore(ExploreOptions(seed: 1, runs: runs, jobs: 2), now: { 0 })
        #expect(result.runsDone == runs)
        #expect(result.errored == 0)
        let found = result.failures.map { "\($0.key) in run \($0.run)" }
        #expect(found.isEmpty, "\(found)")
    }
}
