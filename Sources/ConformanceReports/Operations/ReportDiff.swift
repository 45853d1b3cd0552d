/// What changed between two JSON reports (`session-conformance diff OLD.json NEW.json`): the CI gate for a
/// team porting the design.
///
/// A requirement counts as covered when it was checked: `pass`, `warn`, `known`, `fail` or `error`, or
/// `untested` because its covering cases were inconclusive (the client never did what the cases are
/// about, so it is not certified for it). Between two covered statuses, `pass` is best, `warn` next, then
/// inconclusive, and `known`, `fail` and `error` are all failures. A **regression** is a covered requirement whose status got worse (for example `pass` to
/// `fail`, `pass` to `known`, `warn` to `error`); a **fix** is one that got better. **Newly covered**
/// requirements were not checked before and are now (whatever their status); **no longer covered** ones
/// were checked and now are not (skipped, untested, or gone). Only regressions fail the diff.
public struct ReportDiff: Sendable {
    public struct Change: Sendable, Equatable {
        public let id: String
        public let level: String
        public let old: RequirementReportStatus?
        public let new: RequirementReportStatus?
        /// The statuses as printed: `untested (inconclusive)` when the covering cases were inconclusive.
        public let oldLabel: String
        public let newLabel: String
        /// For a regression: the first piece of new evidence, or the reason.
        public let detail: String?
    }

    public let regressions: [Change]
    public let fixes: [Change]
    public let newlyCovered: [Change]
    public let noLongerCovered: [Change]
    /// Covered in both, equally good or bad, but with another status (`fail` and `known`, `fail` and `error`).
    public let otherChanges: [Change]
    public let caseChanges: [(id: String, old: CaseReportStatus?, new: CaseReportStatus?)]
    public let certificationChanges: [(profile: String, old: ProfileVerdict.Verdict?, new: ProfileVerdict.Verdict?)]
    public let notes: [String]

    public var hasRegressions: Bool { !regressions.isEmpty }

    static func rank(_ requirement: RequirementReport) -> Int? {
        switch requirement.status {
        case .pass: 0
        case .warn: 1
        case .untested where requirement.cases.contains { $0.status == .inconclusive }: 2
        case .known, .fail, .error: 3
        case .skipped, .untested, .notTestable: nil
        }
    }

    /// A status as the diff prints it: an untested requirement says when its cases were inconclusive.
    static func label(_ requirement: RequirementReport) -> String {
        requirement.status == .untested && rank(requirement) != nil ? "untested (inconclusive)" : requirement.status.rawValue
    }

    public static func compare(old: ComplianceReport, new: ComplianceReport) -> ReportDiff {
        var regressions: [Change] = [], fixes: [Change] = [], newlyCovered: [Change] = [], noLonger: [Change] = []
        var other: [Change] = []
        let oldByID = Dictionary(old.requirements.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newIDs = Set(new.requirements.map(\.id))
        for requirement in new.requirements {
            let before = oldByID[requirement.id]
            let oldRank = before.flatMap(rank)
            let newRank = rank(requirement)
            let detail = requirement.evidence.first.map { "\($0.caseID), step \($0.step): \($0.fullMessage)" } ?? requirement.reason
            let change = Change(id: requirement.id, level: requirement.level, old: before?.status, new: requirement.status,
                                oldLabel: before.map(label) ?? "absent", newLabel: label(requirement), detail: detail)
            switch (oldRank, newRank) {
            case let (a?, b?) where b > a: regressions.append(change)
            case let (a?, b?) where b < a: fixes.append(change)
            case (_?, _?) where before.map(label) != label(requirement): other.append(change)
            case (nil, _?): newlyCovered.append(change)
            case (_?, nil): noLonger.append(change)
            default: break
            }
        }
        for requirement in old.requirements where !newIDs.contains(requirement.id) && rank(requirement) != nil {
            noLonger.append(Change(id: requirement.id, level: requirement.level, old: requirement.status, new: nil,
                                   oldLabel: label(requirement), newLabel: "absent", detail: "no longer in the spec"))
        }
        let oldCases = Dictionary(old.cases.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        let newCases = Dictionary(new.cases.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        var caseChanges: [(id: String, old: CaseReportStatus?, new: CaseReportStatus?)] = []
        for testCase in new.cases where oldCases[testCase.id] != testCase.status {
            caseChanges.append((testCase.id, oldCases[testCase.id], testCase.status))
        }
        for testCase in old.cases where newCases[testCase.id] == nil {
            caseChanges.append((testCase.id, testCase.status, nil))
        }
        let oldVerdicts = Dictionary(old.certification.map { ($0.profile, $0.verdict) }, uniquingKeysWith: { a, _ in a })
        var certification: [(profile: String, old: ProfileVerdict.Verdict?, new: ProfileVerdict.Verdict?)] = []
        for verdict in new.certification where oldVerdicts[verdict.profile] != verdict.verdict {
            certification.append((verdict.profile, oldVerdicts[verdict.profile], verdict.verdict))
        }
        var notes: [String] = []
        if old.spec.digest != new.spec.digest {
            notes.append("the reports certify against different specs (\(old.spec.digest.prefix(19))… and \(new.spec.digest.prefix(19))…)")
        }
        if old.suite.version != new.suite.version {
            notes.append("the suite versions differ (\(old.suite.version) and \(new.suite.version))")
        }
        if old.isPartial || new.isPartial {
            notes.append("a report covers only part of the suite (a shard or a filtered run): merge shards before diffing")
        }
        if old.run.seed != new.run.seed { notes.append("the seeds differ (\(old.run.seed) and \(new.run.seed))") }
        if old.run.world != new.run.world {
            notes.append("the world profiles differ (\(old.run.world ?? "none") and \(new.run.world ?? "none"))")
        }
        return ReportDiff(regressions: regressions, fixes: fixes, newlyCovered: newlyCovered, noLongerCovered: noLonger,
                          otherChanges: other, caseChanges: caseChanges, certificationChanges: certification, notes: notes)
    }

    public func rendered(old: String, new: String) -> String {
        var lines = ["diff \(old) -> \(new)"]
        lines += notes.map { "note: \($0)" }
        func section(_ title: String, _ changes: [Change], detail: Bool = false) {
            lines.append("")
            lines.append("\(title) (\(changes.count))" + (changes.isEmpty ? "" : ":"))
            for change in changes {
                lines.append("  \(change.id) (\(change.level)): \(change.oldLabel) -> \(change.newLabel)" + (detail ? change.detail.map { "  [\($0)]" } ?? "" : ""))
            }
        }
        section("regressions", regressions, detail: true)
        section("fixes", fixes)
        section("newly covered", newlyCovered)
        section("no longer covered", noLongerCovered)
        if !otherChanges.isEmpty { section("other status changes", otherChanges) }
        if !certificationChanges.isEmpty {
            lines.append("")
            lines.append("certification:")
            for change in certificationChanges {
                lines.append("  \(change.profile): \(change.old.map(TextSummaryWriter.verdictWord) ?? "absent") -> "
                             + (change.new.map(TextSummaryWriter.verdictWord) ?? "absent"))
            }
        }
        if !caseChanges.isEmpty {
            lines.append("")
            lines.append("cases (\(caseChanges.count) changed):")
            for change in caseChanges {
                lines.append("  \(change.id): \(change.old?.rawValue ?? "absent") -> \(change.new?.rawValue ?? "absent")")
            }
        }
        lines.append("")
        lines.append(hasRegressions ? "result: \(regressions.count) regression\(regressions.count == 1 ? "" : "s")"
                                    : "result: no regression")
        return lines.joined(separator: "\n") + "\n"
    }
}
