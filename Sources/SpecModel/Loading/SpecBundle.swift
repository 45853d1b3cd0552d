public import SimulatedWorld
public import SpecYAML

/// A design document's text, loaded so quotes can be checked against it.
public struct DocumentText: Sendable {
    public let name: String
    public let path: String
    public let source: SourceText
    public let text: String
}

/// Everything loaded from a set of spec files.
public struct SpecBundle: Sendable {
    public var catalogue: RequirementsCatalogue?
    public var stateMachine: StateMachine?
    public var caseFiles: [CaseFile] = []
    /// World profiles (`Specs/worlds/*.yaml`).
    public var worldFiles: [WorldFile] = []
    /// Design documents by file name.
    public var documents: [String: DocumentText] = [:]
    /// Kinds of definition of which some entry could not be read; references to them are left unchecked
    /// rather than reported as unknown.
    public var incomplete: Set<DefinitionKind> = []

    public init() {}

    public var cases: [AcceptanceCase] { caseFiles.flatMap(\.cases) }
    /// What the runner plays: every case, a case with `triggers` as one variant per trigger (`base[trigger]`).
    public var playableCases: [AcceptanceCase] { cases.flatMap(\.variants) }
    public var requirements: [Requirement] { catalogue?.requirements ?? [] }
    /// The contract's version (`specVersion` in requirements.yaml).
    public var specVersion: SpecVersion? { catalogue?.specVersion?.value }
    public var worlds: [WorldProfile] { worldFiles.map(\.profile) }
}
