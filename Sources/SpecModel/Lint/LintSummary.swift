/// Counts and gaps of a spec, for `lint`'s closing summary.
public struct LintSummary: Sendable {
    public let requirementsByLevel: [(level: RequirementLevel, count: Int)]
    public let requirementCount: Int
    public let stateCount: Int
    public let transitionCount: Int
    public let invariantCount: Int
    public let caseFileCount: Int
    public let caseCount: Int
    /// Testable requirements (MUST, SHOULD, MAY) that no case names yet.
    public let requirementsWithoutCase: [String]
    /// Transitions that no case names yet.
    public let transitionsWithoutCase: [String]
    /// The names of the world profiles.
    public let worldNames: [String]

    public init(_ bundle: SpecBundle) {
        let requirements = bundle.requirements
        requirementsByLevel = RequirementLevel.allCases.map { level in
            (level, requirements.filter { $0.level == level }.count)
        }
        requirementCount = requirements.count
        let machine = bundle.stateMachine
        stateCount = machine?.states.count ?? 0
        transitionCount = machine?.transitions.count ?? 0
        invariantCount = machine?.invariants.count ?? 0
        caseFileCount = bundle.caseFiles.count
        caseCount = bundle.cases.count
        let coveredRequirements = Set(bundle.cases.flatMap { $0.requirements.map(\.value) })
        requirementsWithoutCase = requirements.filter { $0.level.isTestable && !coveredRequirements.contains($0.id) }
            .map(\.id)
        let coveredTransitions = Set(bundle.cases.flatMap { $0.transitions.map(\.value) })
        transitionsWithoutCase = (machine?.transitions ?? []).map(\.id).filter { !coveredTransitions.contains($0) }
        worldNames = bundle.worlds.map(\.name)
    }

    /// The summary as lint prints it.
    public func rendered() -> String {
        let levels = requirementsByLevel.map { "\($0.count) \($0.level.rawValue)" }.joined(separator: ", ")
        var lines = [
            "requirements: \(requirementCount) (\(levels))",
            "state machine: \(stateCount) states, \(transitionCount) transitions, \(invariantCount) invariants",
            "cases: \(caseCount) in \(caseFileCount) file\(caseFileCount == 1 ? "" : "s")",
        ]
        if !worldNames.isEmpty {
            lines.append("worlds: \(worldNames.count) (\(worldNames.joined(separator: ", ")))")
        }
        if !requirementsWithoutCase.isEmpty {
            lines.append("requirements with no case yet (\(requirementsWithoutCase.count)): "
                         + requirementsWithoutCase.joined(separator: ", "))
        }
        if !transitionsWithoutCase.isEmpty {
            lines.append("transitions with no case yet (\(transitionsWithoutCase.count)): "
                         + transitionsWithoutCase.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
