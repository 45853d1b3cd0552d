import SpecYAML

/// The state machine on its own: unique IDs, known states, and every state reachable from the initial one.
enum StateMachineChecks {
    static func check(_ machine: StateMachine, resolver: ReferenceResolver) -> [Diagnostic] {
        var diagnostics = duplicateIDs(machine.states.map { ($0.id, $0.location) }, "state")
        diagnostics += duplicateIDs(machine.invariants.map { ($0.id, $0.location) }, "invariant")
        diagnostics += duplicateIDs(machine.transitions.map { ($0.id, $0.location) }, "transition")
        let states = machine.states.map(\.id)
        let initialKnown = resolver.check(machine.initial, .state, known: states, in: "'initial'")
        if let initialKnown { diagnostics.append(initialKnown) }
        var seenEdges: [String: Transition] = [:]
        let transitionIDs = machine.transitions.map(\.id)
        for (index, transition) in machine.transitions.enumerated() {
            let place = "transition '\(transition.id)'"
            for end in [transition.from, transition.to] {
                if let error = resolver.check(end, .state, known: states, in: place) { diagnostics.append(error) }
            }
            let edge = "\(transition.from.value) \(transition.event) \(transition.to.value)"
            // A duplicated ID is reported already; comparing its edge again would say the same twice.
            if let earlier = seenEdges[edge], !transitionIDs[..<index].contains(transition.id) {
                diagnostics.append(.error(
                    "transition '\(transition.id)' repeats '\(earlier.id)': same states and event", at: transition.location,
                    notes: [.init("'\(earlier.id)' defined here", at: earlier.location)]))
            }
            seenEdges[edge] = transition
            if transition.optional, transition.generation != .keep {
                diagnostics.append(.error(
                    "optional transition '\(transition.id)' must keep the generation: a client that skips it would hide a session's end",
                    at: transition.location))
            }
        }
        diagnostics += aliasCollisions(machine.transitions)
        // Reachability over a machine that lost states or transitions to errors would report phantoms.
        guard initialKnown == nil, resolver.incomplete.isDisjoint(with: [.state, .transition]) else {
            return diagnostics
        }
        let reachable = reachableStates(machine)
        for state in machine.states where !reachable.contains(state.id) {
            diagnostics.append(.error(
                "state '\(state.id)' cannot be reached from the initial state '\(machine.initial.value)'",
                at: state.location))
        }
        return diagnostics
    }

    /// A reported name must pick one transition: no alias is a transition's ID or another alias.
    static func aliasCollisions(_ transitions: [Transition]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var aliasOwners: [String: (transition: String, location: SourceLocation)] = [:]
        for transition in transitions {
            for alias in transition.aliases {
                if let owner = transitions.first(where: { $0.id == alias.value }) {
                    diagnostics.append(.error(
                        "alias '\(alias.value)' of transition '\(transition.id)' is the ID of transition '\(owner.id)'",
                        at: alias.location, notes: [.init("'\(owner.id)' defined here", at: owner.location)]))
                } else if let earlier = aliasOwners[alias.value] {
                    diagnostics.append(.error(
                        "alias '\(alias.value)' of transition '\(transition.id)' is already an alias of '\(earlier.transition)'",
                        at: alias.location, notes: [.init("first listed here", at: earlier.location)]))
                } else {
                    aliasOwners[alias.value] = (transition.id, alias.location)
                }
            }
        }
        return diagnostics
    }

    static func reachableStates(_ machine: StateMachine) -> Set<String> {
        var reached: Set<String> = [machine.initial.value]
        var frontier = [machine.initial.value]
        while let state = frontier.popLast() {
            for transition in machine.transitions where transition.from.value == state {
                if reached.insert(transition.to.value).inserted { frontier.append(transition.to.value) }
            }
        }
        return reached
    }
}
