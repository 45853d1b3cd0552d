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
    /// Earlier IDs of the transition, still accepted when a client reports it (a rename keeps its old name
    /// for at least one spec version).
    public let aliases: [Located<String>]
    /// Whether a client may skip it: go from `from` straight to where a transition out of `to` leads, and
    /// report that one (a refresh or a sign-in that never shows its in-between state). Always a `keep` transition.
    public let optional: Bool
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

    /// The transition a client names: by its ID or by one of its aliases.
    public func transition(named name: String) -> Transition? {
        transition(name) ?? transitions.first { $0.aliases.contains { $0.value == name } }
    }

    /// A way through the machine from one state to another: one transition, or an optional transition the client
    /// skipped and the transition out of its `to` state that it took instead.
    public struct Path: Sendable {
        public let skipped: Transition?
        public let transition: Transition
        /// The generation rule of the whole path: the taken transition's (a skipped one always keeps it).
        public var generation: GenerationEffect { transition.generation }

        public init(skipped: Transition?, transition: Transition) {
            self.skipped = skipped
            self.transition = transition
        }
    }

    /// Every path from `from` to `to`: the direct transitions first, then those through a skipped optional one.
    public func paths(from: String, to: String) -> [Path] {
        let direct = transitions.filter { $0.from.value == from && $0.to.value == to }.map { Path(skipped: nil, transition: $0) }
        let skipping = transitions.filter { $0.optional && $0.from.value == from && $0.generation == .keep }.flatMap { skipped in
            transitions.filter { $0.from.value == skipped.to.value && $0.to.value == to && !$0.optional }
                .map { Path(skipped: skipped, transition: $0) }
        }
        return direct + skipping
    }

    /// The transition from one state to another on an event, if the machine allows it.
    public func transition(from: String, to: String) -> [Transition] {
        transitions.filter { $0.from.value == from && $0.to.value == to }
    }
}
