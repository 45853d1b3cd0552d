extension StateMachine {
    /// The transitions as a Markdown table, in the order of `state-machine.yaml`: ID, source and target state,
    /// whether the transition starts a new session generation, whether a client may skip it, and its aliases.
    /// docs/adapter-protocol.md carries this table; a test keeps the two equal.
    public func markdownTransitionTable() -> String {
        var lines = [
            "| transition | from -> to | generation | optional | aliases |",
            "| --- | --- | --- | --- | --- |",
        ]
        for transition in transitions {
            let generation = switch transition.generation {
            case .increment: "**new** (larger)"
            case .keep: "kept"
            }
            let aliases = transition.aliases.map { "`\($0.value)`" }.joined(separator: ", ")
            lines.append("| `\(transition.id)` | `\(transition.from.value)` -> `\(transition.to.value)` | \(generation) | "
                         + "\(transition.optional ? "yes" : "") | \(aliases) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
