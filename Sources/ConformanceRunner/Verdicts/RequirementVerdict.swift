import SpecModel

/// A requirement's result over the whole run.
public enum RequirementStatus: String, Sendable, Hashable, CaseIterable {
    case pass
    case fail
    /// A SHOULD or MAY that failed.
    case warn
    /// Every case covering it was skipped, or it needs a capability the adapter did not declare.
    case skipped
    /// A case covering it could not run to the end: the adapter crashed, hung or broke the protocol.
    case error
    /// No case covers it, or no covering case was conclusive (each was inconclusive or skipped).
    case untested
    /// An informative or server statement: no client can pass or fail it alone.
    case notTestable
}

public struct RequirementVerdict: Sendable {
    public let id: String
    public let level: RequirementLevel
    public let title: String
    public let status: RequirementStatus
    /// The cases that name it, with their status.
    public let cases: [(id: String, status: CaseStatus)]
    /// Findings charged to it, with the case they came from.
    public let findings: [(caseID: String, finding: Finding)]
    public let reason: String?
}

/// The rule that decides a requirement's status from the cases covering it. The runner's verdicts and the
/// reports' derivation (`ComplianceReport.derive()`) both call it, so they cannot disagree.
public enum VerdictRule {
    /// A case covering the requirement, as the rule needs it.
    public struct Covering: Sendable {
        public let id: String
        public let status: CaseStatus
        public let reason: String?

        public init(id: String, status: CaseStatus, reason: String?) {
            self.id = id
            self.status = status
            self.reason = reason
        }
    }

    /// How the reason of a variant skipped for its refresh trigger begins (`CaseExecutor`).
    public static let triggerNotUsed = "refresh trigger not used: "

    /// - Parameters:
    ///   - charged: how many findings are charged to the requirement.
    ///   - uncovered: the reason given when no case covers it.
    /// A requirement passes only when at least one covering case was conclusive (passed or failed) and
    /// nothing is charged to it; covered only by inconclusive (and skipped) cases, it is `untested`, with why.
    ///   - needs: the situations a conclusive case must have reached (`evidence:`); `reached`, those that some
    ///     conclusive case of the run reached. A requirement with a need not reached is `untested`, never `pass`.
    public static func decide(level: RequirementLevel, capability: String?, declared: Set<String>, charged: Int,
                              covering: [Covering], uncovered: String = "no case covers it yet",
                              needs: [Situation] = [], reached: Set<Situation> = []) -> (RequirementStatus, String?) {
        guard level.isTestable else { return (.notTestable, "level \(level.rawValue)") }
        // A finding charged to it counts even when its capability is not declared: an oracle charges such a
        // requirement only when the client did what the capability names (offline browsing nobody declared).
        if charged > 0 { return (level == .must ? .fail : .warn, nil) }
        if let capability, !declared.contains(capability) {
            return (.skipped, "the adapter does not declare \(capability)")
        }
        if covering.contains(where: { $0.status == .error }) {
            return (.error, "a covering case could not run to the end")
        }
        let inconclusive = covering.filter { $0.status == .inconclusive }
        if covering.contains(where: { $0.status == .pass || $0.status == .fail }) {
            let missing = needs.filter { !reached.contains($0) }
            guard !missing.isEmpty else { return (.pass, nil) }
            let why = inconclusive.map { "\($0.id): \($0.reason ?? "a precondition did not hold")" }
                + covering.filter { $0.status == .skipped }.map { "\($0.id) skipped: \($0.reason ?? "skipped")" }
            return (.untested, "no conclusive case showed that the client "
                    + missing.map { "\($0.description) [\($0.rawValue)]" }.joined(separator: "; nor that it ")
                    + (why.isEmpty ? "" : "; cases that could have: " + why.joined(separator: "; ")))
        }
        if !inconclusive.isEmpty {
            let skipped = covering.filter { $0.status == .skipped }
            let why = inconclusive.map { "\($0.id): \($0.reason ?? "a precondition did not hold")" }
                + skipped.map { "\($0.id) skipped: \($0.reason ?? "skipped")" }
            return (.untested, "every covering case was inconclusive" + (skipped.isEmpty ? "" : " or skipped") + ": "
                    + why.joined(separator: "; "))
        }
        // A variant skipped for a refresh trigger the client does not use says nothing of the requirement: unlike
        // a missing capability, it never makes the requirement not apply, nor do other cases skipped beside it
        // (a client that never refreshes is not excused from single flight by lacking background refresh).
        if !covering.contains(where: { ($0.reason ?? "").hasPrefix(triggerNotUsed) }), let first = covering.first {
            return (.skipped, first.reason)
        }
        if !covering.isEmpty {
            return (.untested, "every covering case was skipped: " + covering.map { "\($0.id): \($0.reason ?? "skipped")" }.joined(separator: "; "))
        }
        return (.untested, uncovered)
    }
}

enum VerdictBuilder {
    static func verdicts(catalogue: RequirementsCatalogue, outcomes: [CaseOutcome], capabilities: [String]) -> [RequirementVerdict] {
        let declared = Set(capabilities)
        let reached = outcomes.reduce(into: Set<Situation>()) { $0.formUnion($1.reached) }
        return catalogue.requirements.map { requirement in
            let covering = outcomes.filter { $0.requirements.contains(requirement.id) }
            let charged = outcomes.flatMap { outcome in
                outcome.findings.filter { $0.requirements.contains(requirement.id) }.map { (outcome.caseID, $0) }
            }
            let (status, reason) = VerdictRule.decide(
                level: requirement.level, capability: requirement.capability?.value, declared: declared, charged: charged.count,
                covering: covering.map { VerdictRule.Covering(id: $0.caseID, status: $0.status, reason: $0.reason) },
                needs: requirement.evidence, reached: reached)
            return RequirementVerdict(id: requirement.id, level: requirement.level, title: requirement.title, status: status,
                                      cases: covering.map { ($0.caseID, $0.status) }, findings: charged, reason: reason)
        }
    }
}
