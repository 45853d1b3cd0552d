/// The kinds of thing spec files define and reference by ID.
public enum DefinitionKind: String, Sendable, Hashable, CaseIterable {
    case document
    case capability
    case requirement
    case state
    case invariant
    case transition
    case acceptanceCase = "case"
}
