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
    /// No case covers it yet.
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

enum VerdictBuilder {
    static func verdicts(catalogue: RequirementsCatalogue, outcomes: [CaseOutcome], capabilities: [String]) -> [RequirementVerdict] {
        catalogue.requirements.map { requirement in
            let covering = outcomes.filter { $0.requirements.contains(requirement.id) }
            let charged = outcomes.flatMap { outcome in
                outcome.findings.filter { $0.requirements.contains(requirement.id) }.map { (outcome.caseID, $0) }
            }
            let cases = covering.map { ($0.caseID, $0.status) }
            func verdict(_ status: RequirementStatus, _ reason: String? = nil) -> RequirementVerdict {
                RequirementVerdict(id: requirement.id, level: requirement.level, title: requirement.title, status: status,
                                   cases: cases, findings: charged, reason: reason)
            }
            guard requirement.level.isTestable else {
                return verdict(.notTestable, "level \(requirement.level.rawValue)")
            }
            if let capability = requirement.capability?.value, !capabilities.contains(capability) {
                return verdict(.skipped, "the adapter does not declare \(capability)")
            }
            if !charged.isEmpty { return verdict(requirement.level == .must ? .fail : .warn) }
            if covering.contains(where: { $0.status == .error }) {
                return verdict(.error, "a covering case could not run to the end")
            }
            if covering.contains(where: { $0.status == .pass || $0.status == .fail }) { return verdict(.pass) }
            if !covering.isEmpty { return verdict(.skipped, covering.first?.reason) }
            return verdict(.untested, "no case covers it yet")
        }
    }
}
