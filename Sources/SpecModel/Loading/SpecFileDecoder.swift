public import SpecYAML

/// One spec file, decoded by its `kind`.
public enum DecodedSpecFile: Sendable {
    case requirements(RequirementsCatalogue)
    case stateMachine(StateMachine)
    case cases(CaseFile)
    case world(WorldFile)
}

/// What decoding one file gave: the file if its kind was readable, its diagnostics, and which kinds of
/// definition lost entries to errors.
public struct SpecFileDecoding: Sendable {
    public let file: DecodedSpecFile?
    public let diagnostics: [Diagnostic]
    public let incomplete: Set<DefinitionKind>
}

/// Decodes the node tree of one spec file.
public enum SpecFileDecoder {
    public static func decode(_ root: YAMLNode?, file: String) -> SpecFileDecoding {
        var decoder = SpecDecoder()
        guard let root else {
            decoder.error("the file is empty; a spec file starts with 'kind:' and 'version:'",
                          at: SourceLocation(file: file, line: 1, column: 1))
            return SpecFileDecoding(file: nil, diagnostics: decoder.diagnostics.diagnostics, incomplete: [])
        }
        let kinds = SpecFileKind.allCases.map(\.rawValue)
        guard let entries = root.mapping else {
            decoder.error("expected the file to be a mapping with 'kind' and 'version', found \(root.kindDescription)",
                          at: root.location)
            return SpecFileDecoding(file: nil, diagnostics: decoder.diagnostics.diagnostics, incomplete: [])
        }
        // Read `kind` first: it decides which keys are allowed.
        guard let kindNode = entries.first(where: { $0.key == "kind" })?.value else {
            decoder.error("missing key 'kind' (one of \(kinds.joined(separator: ", ")))", at: root.location)
            return SpecFileDecoding(file: nil, diagnostics: decoder.diagnostics.diagnostics, incomplete: [])
        }
        guard let kind = decoder.choice(kindNode, "kind", as: SpecFileKind.self)?.value else {
            return SpecFileDecoding(file: nil, diagnostics: decoder.diagnostics.diagnostics, incomplete: [])
        }
        let allowed = ["kind", "version"] + topLevelKeys(kind)
        guard var top = decoder.mapping(root, "a \(kind.rawValue) file", allowed: allowed) else {
            return SpecFileDecoding(file: nil, diagnostics: decoder.diagnostics.diagnostics, incomplete: [])
        }
        if let version = top.required("version").flatMap({ decoder.integer($0, "version") }),
           version.value != supportedSpecVersion {
            decoder.error("unsupported version \(version.value); this suite reads version \(supportedSpecVersion)",
                          at: version.location)
        }
        let decoded: DecodedSpecFile?
        switch kind {
        case .requirements:
            decoded = .requirements(decoder.requirementsCatalogue(&top, file: file))
        case .stateMachine:
            decoded = decoder.stateMachine(&top, file: file).map(DecodedSpecFile.stateMachine)
        case .cases:
            decoded = .cases(decoder.caseFile(&top, file: file))
        case .world:
            decoded = decoder.worldFile(&top, file: file).map(DecodedSpecFile.world)
        }
        decoder.finish(top)
        return SpecFileDecoding(file: decoded, diagnostics: decoder.diagnostics.diagnostics, incomplete: decoder.incomplete)
    }

    private static func topLevelKeys(_ kind: SpecFileKind) -> [String] {
        switch kind {
        case .requirements: ["specVersion", "documents", "capabilities", "requirements"]
        case .stateMachine: ["initial", "states", "transitions"]
        case .cases: ["cases"]
        case .world: SpecDecoder.worldKeys
        }
    }
}
