/// The kinds of spec file, named by each file's top-level `kind` key.
public enum SpecFileKind: String, Sendable, CaseIterable {
    case requirements
    case stateMachine = "state-machine"
    case cases
    /// A world profile (`Specs/worlds/*.yaml`).
    case world
}

/// The spec format version this suite reads.
public let supportedSpecVersion = 1
