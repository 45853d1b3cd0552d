import SpecYAML

extension SpecDecoder {
    mutating func stateMachine(_ top: inout MappingReader, file: String) -> StateMachine? {
        let initial = top.required("initial").flatMap { string($0, "'initial'") }
        let stateNodes = top.required("states").flatMap { list($0, "states") }
        let states = track(.state, nodes: stateNodes, decoded: stateNodes?.compactMap { state($0) } ?? [])
        let transitionNodes = top.required("transitions").flatMap { list($0, "transitions") }
        let transitions = track(.transition, nodes: transitionNodes,
                                decoded: transitionNodes?.compactMap { transition($0) } ?? [])
        guard let initial else { return nil }
        return StateMachine(file: file, initial: initial, states: states, transitions: transitions)
    }

    private mutating func state(_ node: YAMLNode) -> SessionState? {
        guard var map = mapping(node, "a state", allowed: ["id", "description", "invariants"]) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "state id", pattern: .lowerCamel) }
        if let id { map.what = "state '\(id.value)'" }
        let description = map.required("description").flatMap { string($0, "the 'description' of \(map.what)") }
        let invariantNodes = map.optional("invariants").flatMap { list($0, "the 'invariants' of \(map.what)") }
        let invariants = invariantNodes?.compactMap { invariant($0, state: id?.value ?? "") } ?? []
        if let invariantNodes, invariantNodes.count != invariants.count { incomplete.insert(.invariant) }
        finish(map)
        guard let id, let description else {
            if !invariants.isEmpty { incomplete.insert(.invariant) }
            return nil
        }
        return SessionState(id: id.value, location: id.location, description: description.value, invariants: invariants)
    }

    private mutating func invariant(_ node: YAMLNode, state: String) -> Invariant? {
        guard var map = mapping(node, "an invariant", allowed: ["id", "statement"]) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "invariant id", pattern: .lowerKebab) }
        if let id { map.what = "invariant '\(id.value)'" }
        let statement = map.required("statement").flatMap { string($0, "the 'statement' of \(map.what)") }
        finish(map)
        guard let id, let statement else { return nil }
        return Invariant(id: id.value, location: id.location, state: state, statement: statement.value)
    }

    private mutating func transition(_ node: YAMLNode) -> Transition? {
        let keys = ["id", "from", "to", "event", "generation", "description", "aliases", "optional"]
        guard var map = mapping(node, "a transition", allowed: keys) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "transition id", pattern: .lowerKebab) }
        if let id { map.what = "transition '\(id.value)'" }
        let what = map.what
        let from = map.required("from").flatMap { string($0, "the 'from' of \(what)") }
        let to = map.required("to").flatMap { string($0, "the 'to' of \(what)") }
        let event = map.required("event").flatMap { identifier($0, "event", pattern: .lowerCamel) }
        let generation = map.required("generation").flatMap { choice($0, "generation", as: GenerationEffect.self) }
        let description = map.required("description").flatMap { string($0, "the 'description' of \(what)") }
        let aliases = map.optional("aliases").map { aliasList($0, "the 'aliases' of \(what)") } ?? []
        let optional = map.optional("optional").flatMap { flag($0, "the 'optional' of \(what)") }
        finish(map)
        guard let id, let from, let to, let event, let generation, let description else { return nil }
        return Transition(
            id: id.value, location: id.location, from: from, to: to, event: event.value,
            generation: generation.value, description: description.value, aliases: aliases, optional: optional ?? false)
    }

    /// Old IDs of a transition: a non-empty list of lower-kebab IDs (collisions are lint's).
    private mutating func aliasList(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        (list(node, what) ?? []).compactMap { identifier($0, "alias", pattern: .lowerKebab) }
    }

    mutating func flag(_ node: YAMLNode, _ what: String) -> Bool? {
        guard case .bool(let value)? = node.scalar?.resolved else {
            error("expected \(what) to be true or false, found \(node.kindDescription)", at: node.location)
            return nil
        }
        return value
    }
}
