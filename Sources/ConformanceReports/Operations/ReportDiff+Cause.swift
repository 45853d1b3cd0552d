extension ReportDiff {
    /// Tells, for a change between two reports, whether the suite or the client made it (`Cause`).
    struct CauseFinder {
        let old: ComplianceReport
        let new: ComplianceReport
        let sameSpec: Bool
        let oldCases: [String: CaseReport]
        let newCases: [String: CaseReport]
        /// `OLD` or `NEW` when that report records no case definitions and the specs differ.
        let missingDefinitions: String?

        init(old: ComplianceReport, new: ComplianceReport) {
            self.old = old
            self.new = new
            sameSpec = old.spec.digest == new.spec.digest
            oldCases = Dictionary(old.cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            newCases = Dictionary(new.cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            func lacks(_ report: ComplianceReport) -> Bool { report.cases.contains { $0.definition == nil } }
            missingDefinitions = sameSpec ? nil : lacks(old) ? "OLD" : lacks(new) ? "NEW" : nil
        }

        /// A case whose status changed: `new case`, `removed case`, `changed case` (another definition): the suite's;
        /// the same definition: the client's.
        func testCase(_ id: String) -> Cause {
            guard let before = oldCases[id] else { return .suite("new case") }
            guard let after = newCases[id] else { return .suite("removed case") }
            if sameSpec { return .client }
            guard let a = before.definition, let b = after.definition else {
                return .unknown("no case definition recorded in \(missingDefinitions ?? "a report")")
            }
            return a == b ? .client : .suite("changed case")
        }

        /// A requirement whose status got worse, to `rank`: the suite's when the requirement itself changed or
        /// every case that makes it worse is the suite's; else the client's (or unknown).
        func requirement(_ requirement: RequirementReport, before: RequirementReport, rank: Int) -> Cause {
            if let what = Self.requirementChange(before, requirement) { return .suite("\(requirement.id) \(what)") }
            if sameSpec { return .client }
            // The cases that make it worse: those charging it, those that errored, and for a requirement left
            // untested by inconclusive cases, those.
            var culprits: [String] = []
            for id in requirement.evidence.map(\.caseID) + requirement.cases.filter({
                $0.status == .error || (rank == 2 && $0.status == .inconclusive)
            }).map(\.id) where !culprits.contains(id) {
                culprits.append(id)
            }
            let causes = culprits.map { id in
                if case .suite(let what) = testCase(id) { Cause.suite("\(what) \(id)") } else { testCase(id) }
            }
            if causes.contains(.client) { return .client }
            if let unknown = causes.first(where: { if case .unknown = $0 { true } else { false } }) { return unknown }
            guard !causes.isEmpty else {
                return .unknown("no case of the new report explains it")
            }
            let whats = causes.compactMap { if case .suite(let what) = $0 { what } else { nil } }
            return .suite(whats.prefix(3).joined(separator: "; ") + (whats.count > 3 ? "; and \(whats.count - 3) more" : ""))
        }

        /// What changed in a requirement's definition, in words; nil when nothing did.
        static func requirementChange(_ a: RequirementReport, _ b: RequirementReport) -> String? {
            if a.level != b.level { return "changed level (\(a.level) to \(b.level))" }
            if a.statement != b.statement { return "was reworded" }
            if a.capability != b.capability { return "changed capability" }
            if Set(a.needs ?? []) != Set(b.needs ?? []) { return "needs other situations (evidence)" }
            return nil
        }
    }
}
