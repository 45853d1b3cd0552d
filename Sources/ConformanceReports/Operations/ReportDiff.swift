/// What changed between two JSON reports (`session-conformance diff OLD.json NEW.json`): the CI gate for a
/// team porting the design.
///
/// A requirement counts as covered when it was checked: `pass`, `warn`, `known`, `fail` or `error`, or
/// `untested` because its covering cases were inconclusive (the client never did what the cases are
/// about, so it is not certified for it). Between two covered statuses, `pass` is best, `warn` next, then
/// inconclusive, and `known`, `fail` and `error` are all failures. A covered requirement whose status got worse (for example `pass` to
/// `fail`, `pass` to `known`, `warn` to `error`) is a **regression** when the client caused it and a **suite
/// change** when the suite did (see `Cause`); a **fix** is one that got better. **Newly covered**
/// requirements were not checked before and are now (whatever their status); **no longer covered** ones
/// were checked and now are not (skipped, untested, or gone). Only regressions fail the diff.
public struct ReportDiff: Sendable {
    /// Who a change comes from. Two reports made under the same spec (equal digests) differ only by the client.
    /// Under different specs, a case's change is the suite's when the case is new, gone, or has another definition
    /// (`CaseReport.definition`), and the client's when its definition is the same; a requirement's is the suite's
    /// when its level, statement, capability or needed situations changed, or when every case that makes it
    /// worse is the suite's. A report without case definitions (written before they were recorded) leaves it
    /// `unknown`, which the gate counts as the client's.
    public enum Cause: Sendable, Equatable {
        case client
        /// What in the suite changed: for a case `new case`, `removed case` or `changed case`; for a requirement
        /// the same with the case IDs (`new case killed-while-refresh-in-flight[expiry]`), or `ID was reworded`.
        case suite(String)
        /// Why it cannot be told.
        case unknown(String)

        public var isSuite: Bool { if case .suite = self { true } else { false } }

        /// `client`, `suite: WHAT`, or `suite or client? WHY`.
        public var text: String {
            switch self {
            case .client: "client"
            case .suite(let what): "suite: \(what)"
            case .unknown(let why): "suite or client? \(why)"
            }
        }
    }

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
        /// For a requirement that got worse: the client's doing or the suite's.
        public var cause: Cause = .client
    }

    public struct CaseChange: Sendable, Equatable {
        public let id: String
        public let old: CaseReportStatus?
        public let new: CaseReportStatus?
        public let cause: Cause
    }

    /// Worse verdicts the client caused (or that cannot be told from the suite's): these fail the diff.
    public let regressions: [Change]
    /// Worse verdicts the suite caused: a case added, removed or changed, a requirement reworded or tightened.
    public let suiteChanges: [Change]
    public let fixes: [Change]
    public let newlyCovered: [Change]
    public let noLongerCovered: [Change]
    /// Covered in both, equally good or bad, but with another status (`fail` and `known`, `fail` and `error`).
    public let otherChanges: [Change]
    public let caseChanges: [CaseChange]
    public let certificationChanges: [(profile: String, old: ProfileVerdict.Verdict?, new: ProfileVerdict.Verdict?)]
    public let notes: [String]
    /// The spec versions of the two reports (`unknown` for a report written before specs had versions).
    public let specVersions: (old: String, new: String)

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
        var regressions: [Change] = [], suite: [Change] = [], fixes: [Change] = [], newlyCovered: [Change] = []
        var noLonger: [Change] = [], other: [Change] = []
        let causes = CauseFinder(old: old, new: new)
        let oldByID = Dictionary(old.requirements.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newIDs = Set(new.requirements.map(\.id))
        for requirement in new.requirements {
            let before = oldByID[requirement.id]
            let oldRank = before.flatMap(rank)
            let newRank = rank(requirement)
            let detail = requirement.evidence.first.map { "\($0.caseID), step \($0.step): \($0.fullMessage)" } ?? requirement.reason
            var change = Change(id: requirement.id, level: requirement.level, old: before?.status, new: requirement.status,
                                oldLabel: before.map(label) ?? "absent", newLabel: label(requirement), detail: detail)
            switch (oldRank, newRank) {
            case let (a?, b?) where b > a:
                change.cause = causes.requirement(requirement, before: before!, rank: b)
                if change.cause.isSuite { suite.append(change) } else { regressions.append(change) }
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
        var caseChanges: [CaseChange] = []
        for testCase in new.cases where oldCases[testCase.id] != testCase.status {
            caseChanges.append(CaseChange(id: testCase.id, old: oldCases[testCase.id], new: testCase.status,
                                          cause: causes.testCase(testCase.id)))
        }
        for testCase in old.cases where newCases[testCase.id] == nil {
            caseChanges.append(CaseChange(id: testCase.id, old: testCase.status, new: nil, cause: causes.testCase(testCase.id)))
        }
        let oldVerdicts = Dictionary(old.certification.map { ($0.profile, $0.verdict) }, uniquingKeysWith: { a, _ in a })
        var certification: [(profile: String, old: ProfileVerdict.Verdict?, new: ProfileVerdict.Verdict?)] = []
        for verdict in new.certification where oldVerdicts[verdict.profile] != verdict.verdict {
            certification.append((verdict.profile, oldVerdicts[verdict.profile], verdict.verdict))
        }
        var notes: [String] = []
        if old.spec.version != new.spec.version {
            notes.append("the spec versions differ (\(versionNote(old)) and \(versionNote(new))): CHANGELOG.md lists what "
                         + "changed; verdict changes the suite explains are listed apart from regressions")
        }
        if old.spec.digest != new.spec.digest {
            notes.append("the reports certify against different specs (\(old.spec.digest.prefix(19))… and \(new.spec.digest.prefix(19))…)")
        }
        if let missing = causes.missingDefinitions {
            notes.append("\(missing) records no case definitions (a report from before they were recorded): a changed "
                         + "verdict of a case in both reports cannot be told suite from client and counts as a regression")
        }
        if old.suite.version != new.suite.version {
            notes.append("the suite versions differ (\(old.suite.version) and \(new.suite.version))")
        }
        if [old, new].contains(where: { $0.run.shard != nil || !$0.run.filters.isEmpty }) {
            notes.append("a report covers only part of the suite (a shard or a filtered run): merge shards before diffing")
        }
        if old.run.seed != new.run.seed { notes.append("the seeds differ (\(old.run.seed) and \(new.run.seed))") }
        if old.run.world != new.run.world {
            notes.append("the world profiles differ (\(old.run.world ?? "none") and \(new.run.world ?? "none"))")
        }
        return ReportDiff(regressions: regressions, suiteChanges: suite, fixes: fixes, newlyCovered: newlyCovered,
                          noLongerCovered: noLonger, otherChanges: other, caseChanges: caseChanges,
                          certificationChanges: certification, notes: notes,
                          specVersions: (old.spec.versionText, new.spec.versionText))
    }

    static func versionNote(_ report: ComplianceReport) -> String {
        report.spec.version ?? "unknown: a report from before spec versions"
    }

    public func rendered(old: String, new: String) -> String {
        var lines = ["diff \(old) -> \(new)", "spec version: " + (specVersions.old == specVersions.new ? specVersions.old : "\(specVersions.old) -> \(specVersions.new)")]
        lines += notes.map { "note: \($0)" }
        func section(_ title: String, _ changes: [Change], detail: Bool = false) {
            lines.append("")
            lines.append("\(title) (\(changes.count))" + (changes.isEmpty ? "" : ":"))
            for change in changes {
                lines.append("  \(change.id) (\(change.level)): \(change.oldLabel) -> \(change.newLabel)"
                             + (detail ? change.detail.map { "  [\($0)]" } ?? "" : "")
                             + (detail && change.cause != .client ? "  (\(change.cause.text))" : ""))
            }
        }
        section("regressions", regressions, detail: true)
        if !suiteChanges.isEmpty || specVersions.old != specVersions.new {
            lines.append("")
            lines.append("suite changes (\(suiteChanges.count)), worse verdicts the suite explains, not counted as regressions"
                         + (suiteChanges.isEmpty ? "" : ":"))
            for change in suiteChanges {
                lines.append("  \(change.id) (\(change.level)): \(change.oldLabel) -> \(change.newLabel)  (\(change.cause.text))")
            }
        }
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
                lines.append("  \(change.id): \(change.old?.rawValue ?? "absent") -> \(change.new?.rawValue ?? "absent")  (\(change.cause.text))")
            }
        }
        lines.append("")
        let suiteCount = suiteChanges.isEmpty ? "" : "; \(suiteChanges.count) worse verdict\(suiteChanges.count == 1 ? "" : "s") from the suite"
        lines.append((hasRegressions ? "result: \(regressions.count) regression\(regressions.count == 1 ? "" : "s")"
                                     : "result: no regression") + suiteCount)
        // IDs, levels and notes come from the reports, which are untrusted: every line through the console's escaping.
        return lines.map(ConsoleText.line).joined(separator: "\n") + "\n"
    }
}
