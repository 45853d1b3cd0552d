/// The first generated run in which an oracle charges one of the given requirements: how a known-bad variant
/// is found by exploration (`mutants --explore`, docs/exploration.md).
public struct ExploreFinding: Sendable {
    public let run: ExploreRunID
    public let key: ExploreFailureKey
    public let outcome: CaseOutcome
}

extension Explorer {
    /// Plays runs 1...options.runs until one fails an oracle charged to any of `requirements`; nil when none
    /// does. The run found is the lowest such run whatever `options.jobs`.
    public func first(failing requirements: [String], _ options: ExploreOptions) -> ExploreFinding? {
        let wanted = Set(requirements)
        let accepts: @Sendable (ExploreFailureKey) -> Bool = {
            $0.check.hasPrefix("oracle:") && !wanted.isDisjoint(with: $0.requirements)
        }
        var options = options
        options.stopAt = accepts
        let result = explore(options, now: { 0 })
        return result.failures.filter { accepts($0.key) }.min { $0.run < $1.run }
            .map { ExploreFinding(run: $0.run, key: $0.key, outcome: $0.outcome) }
    }
}
