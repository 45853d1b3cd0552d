public import SpecYAML

/// A property that must hold on every trace while the client is in a state.
public struct Invariant: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let state: String
    public let statement: String
}

public struct SessionState: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let description: String
    public let invariants: [Invariant]
}

/// What a transition does to the session generation (the epoch that tags requests and responses).
public enum GenerationEffect: String, Sendable, CaseIterable {
    case keep
    case increment
}

public struct Transition: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let from: Located<String>
    public let to: Located<String>
    public let event: String
    public let generation: GenerationEffect
    public let description: String
}

/// The contents of `state-machine.yaml`: the session lifecycle every client must follow.
public struct StateMachine: Sendable {
    public let file: String
    public let initial: Located<String>
    public let states: [SessionState]
    public let transitions: [Transition]

    public var invariants: [Invariant] { states.flatMap(\.invariants) }

    public func state(_ id: String) -> SessionState? { states.first { $0.id == id } }
    public func transition(_ id: String) -> Transition? { transitions.first { $0.id == id } }

    /// The transition from one state to another on an event, if the machine allows it.
    public func transition(from: String, to: String) -> [Transition] {
        transitions.filter { $0.from.value == from && $0.to.value == to }
    }
}
