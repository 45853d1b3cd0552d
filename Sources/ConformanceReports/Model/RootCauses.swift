import ConformanceRunner
import SpecModel

/// One thing to fix, standing for every case it shows up in: a finding that is the same in many cases
/// (`transition 'sign-in-started' keeps the session generation; it went from 1 to 2`, in 20 cases), or one
/// reason many cases could not run for (the client never refreshed: 23 cases stopped at their precondition).
/// Derived from the cases by `derive()`, in fix-first order (`RootCauseAnalysis`).
public struct RootCause: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable {
        /// The same finding, in one or more cases.
        case failure
        /// Cases that could not run for one reason: inconclusive, or trigger variants skipped because the
        /// trigger started no refresh.
        case inconclusive
    }

    /// Stable across runs of the same client: `refresh`, `refresh-on-expiry`, `state-authenticated`,
    /// `finding-<check>-<digest>`, ...
    public var id: String
    public var kind: Kind
    /// What it is, in a few words: the finding's first message, or what the client did not do
    /// (`the client never refreshed`).
    public var title: String
    /// One line: the title, with how many cases could not run for it (`: 23 cases could not run`).
    public var summary: String
    /// What to do about it, for an inconclusive group (`implement refresh first`).
    public var advice: String?
    /// For a failure: the oracle or expectation that found it.
    public var check: String?
    /// For a failure: how many findings it stands for, over every case (a case may count one many times).
    public var occurrences: Int
    /// The requirements it fails (a failure) or leaves without a verdict (untested or skipped), catalogue order.
    public var requirements: [String]
    /// How many of them are MUST requirements.
    public var mustRequirements: Int
    /// Every case it shows up in, in the spec's order.
    public var cases: [String]
}

/// Groups a report's findings and its cases that could not run into root causes, and ranks them fix-first:
/// by how many requirements each blocks, then how many of those are MUST, then by case count; ties by ID.
/// Reads only the report (no clock), so equal reports give equal root causes in the same order.
public enum RootCauseAnalysis {
    public static func rootCauses(_ report: ComplianceReport) -> [RootCause] {
        guard report.run.startupFailure == nil else { return [] }
        var groups: [String: Group] = [:]
        var order: [String] = []
        func add(_ cause: Cause, kind: RootCause.Kind, check: String? = nil, case id: String, stopped: Bool,
                 occurrences: Int = 1, requirements: [String]) {
            if groups[cause.id] == nil {
                groups[cause.id] = Group(id: cause.id, kind: kind, summary: cause.summary, advice: cause.advice, check: check)
                order.append(cause.id)
            }
            groups[cause.id]!.add(case: id, stopped: stopped, occurrences: occurrences, requirements: requirements)
        }
        let refreshedSomewhere = report.cases.contains { ($0.reached ?? []).contains(Situation.refreshed.rawValue) }
        let failing = Set(report.requirements.filter { $0.status.isFailing }.map(\.id))
        let unsettled = Set(report.requirements.filter { $0.isTestable && ($0.status == .untested || $0.status == .skipped) }.map(\.id))
        for testCase in report.cases {
            switch testCase.status {
            case .fail, .known:
                for finding in testCase.findings {
                    let blocked = finding.requirements.filter(failing.contains)
                    // A step that needed a refresh the client never sends anywhere: the same cause as the cases
                    // that stopped for want of one.
                    if let unmet = finding.unmet, !refreshedSomewhere, let cause = neverRefreshed(unmet) {
                        add(cause, kind: .inconclusive, case: testCase.id, stopped: false, occurrences: finding.occurrences,
                            requirements: blocked)
                        continue
                    }
                    let key = finding.check + "\u{1}" + normalise(finding.message, caseID: testCase.id)
                    let id = "finding-" + slug(finding.check) + "-" + String(SHA256.hex(Array(key.utf8)).prefix(8))
                    add(Cause(id: id, summary: finding.message, advice: nil), kind: .failure, check: finding.check,
                        case: testCase.id, stopped: false, occurrences: finding.occurrences, requirements: blocked)
                }
            case .inconclusive, .skipped:
                guard let cause = cannotRun(testCase, refreshedSomewhere: refreshedSomewhere) else { continue }
                add(cause, kind: .inconclusive, case: testCase.id, stopped: true,
                    requirements: testCase.requirements.filter(unsettled.contains))
            case .pass, .error:
                continue
            }
        }
        let catalogue = Dictionary(report.requirements.enumerated().map { ($1.id, ($0, $1.level)) }, uniquingKeysWith: { a, _ in a })
        let causes = order.map { key -> RootCause in
            let group = groups[key]!
            let requirements = group.requirements.sorted { (catalogue[$0]?.0 ?? .max, $0) < (catalogue[$1]?.0 ?? .max, $1) }
            var summary = group.summary
            if group.stopped > 0 {
                summary += ": \(group.stopped) case\(group.stopped == 1 ? "" : "s") could not run"
                let failed = group.cases.count - group.stopped
                if failed > 0 { summary += ", \(failed) failed for it" }
            }
            return RootCause(id: group.id, kind: group.stopped > 0 ? .inconclusive : group.kind, title: group.summary, summary: summary,
                             advice: group.advice, check: group.check, occurrences: group.occurrences, requirements: requirements,
                             mustRequirements: requirements.filter { catalogue[$0]?.1 == "MUST" }.count, cases: group.cases)
        }
        return causes.sorted { a, b in
            (-a.requirements.count, -a.mustRequirements, -a.cases.count, a.id)
                < (-b.requirements.count, -b.mustRequirements, -b.cases.count, b.id)
        }
    }

    /// The root causes that block at least one requirement: the "fix first" list.
    public static func fixFirst(_ report: ComplianceReport, limit: Int = 5) -> [RootCause] {
        Array((report.rootCauses ?? []).filter { !$0.requirements.isEmpty }.prefix(limit))
    }

    /// The root cause a case's finding belongs to.
    public static func rootCause(of finding: FindingReport, in testCase: CaseReport, report: ComplianceReport) -> RootCause? {
        report.rootCauses?.first { cause in
            guard cause.cases.contains(testCase.id) else { return false }
            if cause.kind == .failure {
                return cause.check == finding.check
                    && normalise(cause.title, caseID: cause.cases[0]) == normalise(finding.message, caseID: testCase.id)
            }
            return cause.id == "refresh" && finding.unmet.flatMap(neverRefreshed) != nil
        }
    }

    /// The root cause a case that could not run belongs to.
    public static func rootCause(ofCase id: String, in report: ComplianceReport) -> RootCause? {
        report.rootCauses?.first { $0.kind == .inconclusive && $0.cases.contains(id) }
    }

    /// A failure's message without what differs from case to case for the same fault: the case's ID, and
    /// every number (step and line numbers, trace events, token handles, counts), as the runner groups the
    /// findings of one case (`Finding.grouped`).
    static func normalise(_ message: String, caseID: String) -> String {
        // Numbers masked, and a word's plural `s` dropped: "1 request" and "3 requests" are one finding.
        let masked = Finding.masked(caseID.isEmpty ? message : message.replacingAll(caseID, with: "<case>"))
        return masked.split(separator: " ", omittingEmptySubsequences: false).map { word -> Substring in
            let core = word.prefix { $0.isLetter || $0 == "-" }
            guard core.count > 2, core.hasSuffix("s") else { return word }
            return core.dropLast() + word.dropFirst(core.count)
        }.joined(separator: " ")
    }

    // MARK: Cases that could not run

    private struct Cause {
        let id: String
        let summary: String
        let advice: String?
    }

    /// Why a case could not run, as a root cause; nil for a skip that is the adapter's own declaration.
    private static func cannotRun(_ testCase: CaseReport, refreshedSomewhere: Bool) -> Cause? {
        if let unmet = testCase.unmet { return cause(unmet, refreshedSomewhere: refreshedSomewhere) }
        guard testCase.status == .inconclusive else { return nil }
        // A report without the structured precondition: the reason, without its step and line numbers.
        let reason = testCase.reason ?? "a precondition did not hold"
        let key = normalise(reason, caseID: testCase.id)
        return Cause(id: "inconclusive-" + String(SHA256.hex(Array(key.utf8)).prefix(8)), summary: reason, advice: nil)
    }

    /// Needing a refresh and getting none: for a client that refreshed in no case at all, every case that needed
    /// one waits for one fix.
    private static func neverRefreshed(_ unmet: UnmetPreconditionReport) -> Cause? {
        guard unmet.endpoint == "refresh", unmet.observed == "0", unmet.expected?.hasPrefix("at most") != true,
              unmet.expected != "0" else { return nil }
        return Cause(id: "refresh", summary: "the client never refreshed", advice: "implement refresh first")
    }

    private static func cause(_ unmet: UnmetPreconditionReport, refreshedSomewhere: Bool) -> Cause {
        if !refreshedSomewhere, let cause = neverRefreshed(unmet) { return cause }
        switch unmet.kind {
        case "refreshTrigger" where unmet.observed == "ahead":
            return Cause(id: "refreshed-ahead-of-expiry",
                         summary: "the client refreshed ahead of expiry, so no access token expired under a held request",
                         advice: "nothing to fix: these variants cannot show their behaviour within a request deadline, and the "
                            + "unauthorized ones test it (docs/spec-format.md#held-requests-and-the-clock)")
        case "refreshTrigger":
            let trigger = unmet.subject.flatMap(RefreshTrigger.init(rawValue:))
            return Cause(id: "refresh-on-" + (unmet.subject ?? "trigger"),
                         summary: "the client never refreshed on " + (trigger?.describedAsCause ?? unmet.subject ?? "its trigger"),
                         advice: "refresh on it, or declare refreshTriggers without it (docs/adapter-protocol.md)")
        case "requests":
            let path = unmet.path ?? "?"
            let summary: String
            if unmet.observed == "0" {
                summary = unmet.endpoint == "refresh" ? "the client did not refresh where a case needed it"
                    : "the client sent no request to \(path) where a case needed one"
            } else {
                summary = "the client's requests to \(path) were not what a case needed (expected \(unmet.expected ?? "?"), "
                    + "got \(unmet.observed ?? "?"))"
            }
            return Cause(id: "requests-" + slug(path) + "-" + slug(unmet.expected ?? "") + "-" + slug(unmet.observed ?? ""),
                         summary: summary, advice: unmet.endpoint.map { "check the client's \($0) requests first" })
        case "state":
            let expected = unmet.expected ?? "?"
            return Cause(id: "state-" + slug(expected) + "-" + slug(unmet.observed ?? "none"),
                         summary: "the client did not reach '\(expected)' where a case needed it (it was in '\(unmet.observed ?? "no state")')",
                         advice: "check the transitions into \(expected) first")
        case "abandoned":
            let request = [unmet.subject, unmet.path].compactMap { $0 }.joined(separator: " ")
            return Cause(id: "abandoned-" + slug(unmet.path ?? "request"),
                         summary: "the client gave up on a held request (\(request)) on its own deadline before a case could release it",
                         advice: "a request deadline of 5 s or more lets these cases run (docs/spec-format.md#held-requests-and-the-clock)")
        case "killPoint":
            let point = unmet.subject ?? "?"
            return Cause(id: "kill-point-" + slug(point), summary: "the client made no storage change at kill point \(point)",
                         advice: "check what the client writes to storage at that point")
        default:
            let subject = unmet.subject ?? unmet.kind
            return Cause(id: "precondition-" + slug(subject) + "-" + slug(unmet.expected ?? "") + "-" + slug(unmet.observed ?? ""),
                         summary: "a precondition on \(subject) did not hold"
                            + (unmet.expected.map { " (expected \($0), got \(unmet.observed ?? "?"))" } ?? ""),
                         advice: nil)
        }
    }

    // MARK: Grouping

    private struct Group {
        let id: String
        let kind: RootCause.Kind
        let summary: String
        let advice: String?
        let check: String?
        var cases: [String] = []
        /// How many of the cases could not run (the others failed with it).
        var stopped = 0
        var occurrences = 0
        var requirements: Set<String> = []

        init(id: String, kind: RootCause.Kind, summary: String, advice: String?, check: String?) {
            self.id = id
            self.kind = kind
            self.summary = summary
            self.advice = advice
            self.check = check
        }

        mutating func add(case id: String, stopped: Bool, occurrences: Int, requirements: [String]) {
            if cases.last != id {
                cases.append(id)
                if stopped { self.stopped += 1 }
            }
            self.occurrences += occurrences
            self.requirements.formUnion(requirements)
        }
    }

    static func slug(_ text: String) -> String {
        var out = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                out.append(character)
            } else if out.last != "-" {
                out.append("-")
            }
        }
        return String(out.drop { $0 == "-" }.reversed().drop { $0 == "-" }.reversed())
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

}
