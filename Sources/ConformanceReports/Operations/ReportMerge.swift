/// Joins the JSON reports of the shards of one run (`--shard 1/N` ... `--shard N/N`) into the report the
/// unsharded run gives: the cases of all shards in spec order, and every derived section (requirement
/// statuses, evidence, certification, expected failures, gate) computed again over all of them.
public enum ReportMerge {
    public struct MergeError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// `reports` pairs each report with its file name, for the messages.
    public static func merge(_ reports: [(file: String, report: ComplianceReport)]) throws(MergeError) -> ComplianceReport {
        guard let (firstFile, first) = reports.first else { throw MergeError(description: "no report to merge") }
        if reports.count == 1, first.run.shard == nil { return first }
        for (file, report) in reports.dropFirst() {
            func differ(_ what: String, _ a: String, _ b: String) -> MergeError {
                MergeError(description: "\(file) and \(firstFile) are not shards of one run: their \(what) differ (\(b) vs \(a))")
            }
            if report.suite != first.suite { throw differ("suite versions", first.suite.version, report.suite.version) }
            if report.spec.digest != first.spec.digest { throw differ("spec digests", first.spec.digest, report.spec.digest) }
            if report.spec.version != first.spec.version { throw differ("spec versions", first.spec.versionText, report.spec.versionText) }
            if report.adapter != first.adapter { throw differ("adapters", first.adapter.description, report.adapter.description) }
            if report.run.seed != first.run.seed { throw differ("seeds", first.run.seed, report.run.seed) }
            if report.run.world != first.run.world {
                throw differ("world profiles", first.run.world ?? "none", report.run.world ?? "none")
            }
            if report.run.filters != first.run.filters {
                throw differ("case filters", first.run.filters.joined(separator: ","), report.run.filters.joined(separator: ","))
            }
            if report.run.command != first.run.command { throw differ("commands", first.run.command, report.run.command) }
            if (report.run.exploration == nil) != (first.run.exploration == nil) {
                func kind(_ report: ComplianceReport) -> String { report.run.exploration == nil ? "run" : "explore" }
                throw differ("commands", kind(first), kind(report))
            }
            if report.requirements.map(\.id) != first.requirements.map(\.id) {
                throw differ("requirement catalogues", "\(first.requirements.count) requirements", "\(report.requirements.count) requirements")
            }
            if report.expectedFailures?.file != first.expectedFailures?.file
                || report.expectedFailures?.strict != first.expectedFailures?.strict
                || report.expectedFailures?.entries.map({ "\($0.id)\u{0}\($0.reason)" })
                    != first.expectedFailures?.entries.map({ "\($0.id)\u{0}\($0.reason)" }) {
                throw differ("expected failures", first.expectedFailures?.file ?? "none", report.expectedFailures?.file ?? "none")
            }
        }
        guard let count = first.run.shard?.count else {
            throw MergeError(description: "\(firstFile) is not a shard report (it was run without --shard)")
        }
        var seen: [Int: String] = [:]
        for (file, report) in reports {
            guard let shard = report.run.shard else {
                throw MergeError(description: "\(file) is not a shard report (it was run without --shard)")
            }
            guard shard.count == count else {
                throw MergeError(description: "\(file) is shard \(shard) but \(firstFile) is one of \(count)")
            }
            if let other = seen[shard.index] {
                throw MergeError(description: "\(file) and \(other) are both shard \(shard)")
            }
            seen[shard.index] = file
        }
        let missing = (1...count).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            throw MergeError(description: "shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) "
                             + "missing: merge needs all \(count) shard reports")
        }
        var caseOwners: [String: String] = [:]
        for (file, report) in reports {
            for testCase in report.cases {
                if let other = caseOwners[testCase.id] {
                    throw MergeError(description: "case \(testCase.id) is in both \(other) and \(file)")
                }
                caseOwners[testCase.id] = file
            }
        }

        var merged = first
        merged.run.shard = nil
        merged.cases = distinctExploreFailures(reports.flatMap(\.report.cases))
        merged.run.startedAt = reports.map(\.report.run.startedAt).min() ?? first.run.startedAt
        merged.run.finishedAt = reports.map(\.report.run.finishedAt).max() ?? first.run.finishedAt
        merged.run.completed = reports.allSatisfy(\.report.run.completed)
        merged.run.startupFailure = reports.lazy.compactMap(\.report.run.startupFailure).first
        if first.run.exploration != nil {
            merged.run.exploration = RunInfo.Exploration(runs: reports.reduce(0) { $0 + ($1.report.run.exploration?.runs ?? 0) })
        }
        merged.derive()
        return merged
    }

    /// `explore` shards each report their own first run of a failure: the merged report keeps each distinct failure
    /// (check and requirements) once, with the lowest run of the lowest seed that showed it. Other cases pass through.
    static func distinctExploreFailures(_ cases: [CaseReport]) -> [CaseReport] {
        let runs = cases.map { ExploreCaseID($0.id) }
        guard runs.contains(where: { $0 != nil }) else { return cases }
        var kept = Set<Int>()
        var seen = Set<[String]>()
        let order = cases.indices.filter { runs[$0] != nil }.sorted { runs[$0]! < runs[$1]! }
        for index in order {
            let keys = cases[index].findings.map { [$0.check] + $0.requirements }
            let fresh = keys.isEmpty ? [["status", cases[index].status.rawValue, cases[index].reason ?? ""]] : keys
            if fresh.contains(where: { !seen.contains($0) }) { kept.insert(index) }
            seen.formUnion(fresh)
        }
        return cases.indices.filter { runs[$0] == nil || kept.contains($0) }.map { cases[$0] }
    }
}

/// The seed and run an `explore` case ID names (`explore-seed-S-run-K...`), for ordering shards' failures.
struct ExploreCaseID: Comparable {
    let seed: UInt64
    let run: Int

    init?(_ id: String) {
        let parts = id.split(separator: "-")
        guard parts.count >= 5, parts[0] == "explore", parts[1] == "seed", parts[3] == "run",
              let seed = UInt64(parts[2]), let run = Int(parts[4]) else { return nil }
        self.seed = seed
        self.run = run
    }

    static func < (lhs: ExploreCaseID, rhs: ExploreCaseID) -> Bool { (lhs.seed, lhs.run) < (rhs.seed, rhs.run) }
}
