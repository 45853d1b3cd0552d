import ConformanceReports
import ConformanceRunner
import Foundation
import LongTests
import POSIXSync
import Testing

@Suite("Shards")
struct ShardTests {
    @Test("I/N parses only when 1 <= I <= N", arguments: [("1/1", true), ("2/4", true), ("4/4", true), ("0/2", false),
                                                          ("3/2", false), ("1/0", false), ("a/2", false), ("1/2/3", false), ("2", false)])
    func parsing(text: String, valid: Bool) {
        #expect((Shard(text) != nil) == valid)
    }

    @Test("the shards of a split hold every case exactly once, differ in size by at most one, whatever the order")
    func partition() throws {
        let ids = try Runs.bundle().cases.map(\.id)
        for count in [1, 2, 3, 5, ids.count, ids.count + 3] {
            let shards = (1...count).map { Shard(index: $0, count: count)!.select(ids) }
            #expect(shards.reduce(0) { $0 + $1.count } == ids.count)
            #expect(Set(shards.flatMap { $0 }) == Set(ids))
            let sizes = shards.map(\.count)
            #expect(sizes.max()! - sizes.min()! <= 1, "\(count) shards: \(sizes)")
            let reversed = (1...count).map { Shard(index: $0, count: count)!.select(ids.reversed()) }
            #expect(reversed == shards, "the split depends on the order of the cases")
        }
    }

    @Test("the split is by a stable hash: fixed IDs always land in the same shard")
    func stable() {
        let ids = ["alpha", "beta", "gamma", "delta"]
        #expect(Shard("1/2")!.select(ids) == Shard("1/2")!.select(ids))
        // SHA-256 order of the four IDs, dealt round-robin (a regression check on the documented rule).
        let order = ids.sorted { SHA256.hash(Array($0.utf8)).lexicographicallyPrecedes(SHA256.hash(Array($1.utf8))) }
        #expect(Shard("1/2")!.select(ids) == [order[0], order[2]])
    }
}

@Suite("Merge")
struct MergeTests {
    static func shards(_ launcher: any AdapterLauncher, count: Int, expected: ExpectedFailures? = nil) throws -> [ComplianceReport] {
        try (1...count).map { index in
            try Runs.report(launcher, shard: Shard(index: index, count: count)!, expected: expected).report
        }
    }

    /// The shards of the reference in-process, made once per count for the tests that only read them.
    static func referenceShards(count: Int) throws -> [ComplianceReport] {
        try referenceShardsMade.withLock { made in
            if let shards = made[count] { return shards }
            let shards = try shards(Runs.referenceLauncher, count: count)
            made[count] = shards
            return shards
        }
    }

    private static let referenceShardsMade = Locked<[Int: [ComplianceReport]]>([:])

    /// Through JSON, as CI does it.
    static func merged(_ shards: [ComplianceReport]) throws -> ComplianceReport {
        let read = try shards.enumerated().map { ("shard-\($0.offset + 1).json", try JSONReportWriter.read(JSONReportWriter.render($0.element))) }
        return try ReportMerge.merge(read.reversed())
    }

    @Test("merging the shards gives the report of the unsharded run: 3 shards of a passing client, 2 of a failing one")
    func mergeEqualsUnsharded() throws {
        try Self.expectMergeEqualsWhole(try Self.referenceShards(count: 3), Runs.shared.reference)
        try Self.expectMergeEqualsWhole(try Self.shards(Runs.defectiveLauncher, count: 2), Runs.shared.defective)
    }

    @Test("merging the shards gives the report of the unsharded run: 2 shards of the passing client, 3 of the failing one",
          .long)
    func mergeEqualsUnshardedOtherCounts() throws {
        try Self.expectMergeEqualsWhole(try Self.referenceShards(count: 2), Runs.shared.reference)
        try Self.expectMergeEqualsWhole(try Self.shards(Runs.defectiveLauncher, count: 3), Runs.shared.defective)
    }

    static func expectMergeEqualsWhole(_ shards: [ComplianceReport], _ whole: ComplianceReport) throws {
        let merged = try Self.merged(shards)
        #expect(merged.removingWallClock() == whole.removingWallClock(), "\(shards.count) shards of \(whole.adapter.description)")
        #expect(JSONReportWriter.render(merged.removingWallClock()) == JSONReportWriter.render(whole.removingWallClock()))
    }

    /// Long: in the default set, docs/ci.md's GitLab jobs merge shards run with expected failures (DocsSnippetTests).
    @Test("with expected failures too", .long)
    func mergeWithExpectedFailures() throws {
        let expected = try Runs.expectedFailures("""
            - id: LOG-NO-TOKEN-VALUES
              reason: APP-1
            - id: rapid-switching
              reason: APP-2
            """)
        let whole = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        let merged = try Self.merged(try Self.shards(Runs.defectiveLauncher, count: 3, expected: expected))
        #expect(merged.removingWallClock() == whole.removingWallClock())
    }

    @Test("a shard report certifies nothing and fails no gate for requirements other shards cover")
    func shardIsPartial() throws {
        let shard = try Runs.report(Runs.referenceLauncher, shard: Shard("1/3")).report
        #expect(shard.run.shard == Shard("1/3"))
        #expect(shard.certification.allSatisfy { $0.verdict == .incomplete })
        #expect(shard.requirements.contains { $0.status == .untested })
        #expect(shard.gate.passed)
    }

    @Test("a missing, repeated or foreign shard is refused with the reason")
    func refusals() throws {
        let shards = try Self.referenceShards(count: 3)
        func message(_ reports: [(String, ComplianceReport)]) -> String {
            do {
                _ = try ReportMerge.merge(reports)
                return "merged"
            } catch {
                return error.description
            }
        }
        #expect(message([("a", shards[0]), ("c", shards[2])]) == "shard 2/3 missing: merge needs all 3 shard reports")
        #expect(message([("a", shards[0]), ("b", shards[0]), ("c", shards[2])]) == "b and a are both shard 1/3")
        var otherSeed = shards[1]
        otherSeed.run.seed = "2"
        #expect(message([("a", shards[0]), ("b", otherSeed), ("c", shards[2])]).hasPrefix("b and a are not shards of one run: their seeds differ"))
        var otherWorld = shards[1]
        otherWorld.run.world = "rfc6749"
        #expect(message([("a", shards[0]), ("b", otherWorld), ("c", shards[2])])
                == "b and a are not shards of one run: their world profiles differ (rfc6749 vs json-v1)")
        var otherSpec = shards[1]
        otherSpec.spec.digest = "sha256:" + String(repeating: "0", count: 64)
        #expect(message([("a", shards[0]), ("b", otherSpec), ("c", shards[2])]).contains("spec digests differ"))
        var otherVersion = shards[1]
        otherVersion.spec.version = "9.9"
        #expect(message([("a", shards[0]), ("b", otherVersion), ("c", shards[2])])
                == "b and a are not shards of one run: their spec versions differ (9.9 vs \(shards[0].spec.versionText))")
        #expect(message([("a", Runs.shared.reference), ("b", shards[1])]).contains("not a shard report"))
    }
}

@Suite("Diff")
struct DiffTests {
    @Test("pass to fail is a regression; fail to pass a fix; the diff says so and names the evidence")
    func regressionsAndFixes() {
        let (good, bad) = (Runs.shared.reference, Runs.shared.defective)
        let worse = ReportDiff.compare(old: good, new: bad)
        #expect(worse.hasRegressions)
        #expect(worse.regressions.contains { $0.id == "LOG-NO-TOKEN-VALUES" && $0.old == .pass && $0.new == .fail })
        #expect(worse.regressions.contains { $0.id == "REFRESH-USE-LATEST-TOKEN" && $0.new == .error })
        #expect(worse.noLongerCovered.contains { $0.id == "STORAGE-BACKGROUND-ACCESSIBILITY" && $0.new == .skipped })
        #expect(worse.certificationChanges.contains { $0.profile == "core" && $0.new == .notCertified })
        #expect(worse.rendered(old: "old.json", new: "new.json").contains("  LOG-NO-TOKEN-VALUES (MUST): pass -> fail  ["))
        let better = ReportDiff.compare(old: bad, new: good)
        #expect(!better.hasRegressions)
        #expect(better.fixes.contains { $0.id == "LOG-NO-TOKEN-VALUES" })
        #expect(better.newlyCovered.contains { $0.id == "STORAGE-BACKGROUND-ACCESSIBILITY" && $0.new == .pass })
        #expect(!ReportDiff.compare(old: good, new: good).hasRegressions)
    }

    @Test("an untested requirement that gets a case is newly covered; a pass that becomes known is a regression")
    func coverageAndKnown() throws {
        var old = Runs.shared.reference
        let index = try #require(old.requirements.firstIndex { $0.id == "REFRESH-SINGLE-FLIGHT" })
        old.requirements[index].status = .untested
        var new = Runs.shared.reference
        new.requirements[index].status = .known
        let diff = ReportDiff.compare(old: old, new: Runs.shared.reference)
        #expect(diff.newlyCovered.map(\.id) == ["REFRESH-SINGLE-FLIGHT"])
        #expect(ReportDiff.compare(old: Runs.shared.reference, new: new).regressions.map(\.id) == ["REFRESH-SINGLE-FLIGHT"])
        #expect(ReportDiff.compare(old: new, new: Runs.shared.reference).fixes.map(\.id) == ["REFRESH-SINGLE-FLIGHT"])
    }
}
