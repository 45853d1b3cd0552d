import SpecYAML

extension SpecDecoder {
    mutating func requirementsCatalogue(_ top: inout MappingReader, file: String) -> RequirementsCatalogue {
        let specVersion = top.required("specVersion").flatMap { self.specVersion($0) }
        let documentNodes = top.required("documents").flatMap { list($0, "documents") }
        let documents = track(.document, nodes: documentNodes,
                              decoded: documentNodes?.compactMap { sourceDocument($0) } ?? [])
        let capabilityNodes = top.required("capabilities").flatMap { list($0, "capabilities", allowEmpty: true) }
        let capabilities = track(.capability, nodes: capabilityNodes,
                                 decoded: capabilityNodes?.compactMap { capability($0) } ?? [])
        let requirementNodes = top.required("requirements").flatMap { list($0, "requirements") }
        let requirements = track(.requirement, nodes: requirementNodes,
                                 decoded: requirementNodes?.compactMap { requirement($0) } ?? [])
        return RequirementsCatalogue(
            file: file, specVersion: specVersion, documents: documents, capabilities: capabilities, requirements: requirements)
    }

    /// `specVersion: "MAJOR.MINOR"`, quoted: a plain `3.10` is the number 3.1 to YAML tools other than this one.
    private mutating func specVersion(_ node: YAMLNode) -> Located<SpecVersion>? {
        if let scalar = node.scalar, scalar.style == .plain, SpecVersion(scalar.text) != nil {
            error("write the spec version quoted, as specVersion: \"\(scalar.text)\"; unquoted it is a number to YAML "
                  + "(3.10 would read as 3.1)", at: node.location)
            return nil
        }
        guard let text = string(node, "specVersion") else { return nil }
        guard let version = SpecVersion(text.value) else {
            error("specVersion '\(text.value)' is not MAJOR.MINOR (two whole numbers without leading zeros, for example "
                  + "\"3.0\"); docs/spec-format.md says which changes raise which part", at: node.location)
            return nil
        }
        return Located(version, at: node.location)
    }

    private mutating func sourceDocument(_ node: YAMLNode) -> SourceDocument? {
        guard var map = mapping(node, "a document", allowed: ["file", "title", "coverage", "unquoted"]) else {
            return nil
        }
        let file = map.required("file").flatMap { string($0, "the document's 'file'") }
        let title = map.required("title").flatMap { string($0, "the document's 'title'") }
        let coverage = map.required("coverage").flatMap {
            choice($0, "coverage", as: SourceDocument.Coverage.self)
        }
        var unquoted: [SourceDocument.UnquotedPassage] = []
        if let node = map.optional("unquoted"), let items = list(node, "unquoted") {
            unquoted = items.compactMap { unquotedPassage($0) }
            if coverage?.value == .partial {
                error("'unquoted' applies only to documents with 'coverage: complete'", at: node.location)
            }
        }
        finish(map)
        guard let file, let title, let coverage else { return nil }
        return SourceDocument(file: file, title: title.value, coverage: coverage.value, unquoted: unquoted)
    }

    private mutating func unquotedPassage(_ node: YAMLNode) -> SourceDocument.UnquotedPassage? {
        guard var map = mapping(node, "an unquoted passage", allowed: ["text", "why"]) else { return nil }
        let text = map.required("text").flatMap { string($0, "the passage's 'text'") }
        let why = map.required("why").flatMap { string($0, "the passage's 'why'") }
        finish(map)
        guard let text, let why else { return nil }
        return .init(text: text.value, why: why.value, location: text.location)
    }

    private mutating func capability(_ node: YAMLNode) -> Capability? {
        guard var map = mapping(node, "a capability", allowed: ["id", "description"]) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "capability id", pattern: .lowerKebab) }
        let description = map.required("description").flatMap { string($0, "the capability's 'description'") }
        finish(map)
        guard let id, let description else { return nil }
        return Capability(id: id.value, location: id.location, description: description.value)
    }

    private static let requirementKeys = [
        "id", "level", "title", "statement", "source", "transitions", "invariants", "capability", "resolution", "evidence",
    ]

    private mutating func requirement(_ node: YAMLNode) -> Requirement? {
        guard var map = mapping(node, "a requirement", allowed: Self.requirementKeys) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "requirement id", pattern: .upperKebab) }
        let what = id.map { "requirement '\($0.value)'" } ?? "a requirement"
        let level = map.required("level").flatMap { choice($0, "level", as: RequirementLevel.self) }
        let title = map.required("title").flatMap { string($0, "the 'title' of \(what)") }
        let statement = map.required("statement").flatMap { string($0, "the 'statement' of \(what)") }
        let sources = map.required("source").flatMap { list($0, "the 'source' of \(what)") }?
            .compactMap { quote($0) } ?? []
        let transitions = map.optional("transitions").map { stringList($0, "the 'transitions' of \(what)") } ?? []
        let invariants = map.optional("invariants").map { stringList($0, "the 'invariants' of \(what)") } ?? []
        let capability = map.optional("capability").flatMap { string($0, "the 'capability' of \(what)") }
        let resolution = map.optional("resolution").flatMap { decodeResolution($0) }
        let evidenceNode = map.optional("evidence")
        let evidence = evidenceNode.flatMap { list($0, "the 'evidence' of \(what)") }?
            .compactMap { choice($0, "situation", as: Situation.self) } ?? []
        if let level, !level.value.isTestable, let evidenceNode {
            error("\(what) is \(level.value.rawValue); only a MUST, SHOULD or MAY requirement lists 'evidence'",
                  at: evidenceNode.location)
        }
        map.what = what
        finish(map)
        guard let id, let level, let title, let statement else { return nil }
        return Requirement(
            id: id.value, location: id.location, level: level.value, title: title.value,
            statement: statement.value, sources: sources, transitions: transitions, invariants: invariants,
            capability: capability, resolution: resolution, evidence: evidence.map(\.value))
    }

    private mutating func quote(_ node: YAMLNode) -> Quote? {
        guard var map = mapping(node, "a source", allowed: ["document", "quote"]) else { return nil }
        let document = map.required("document").flatMap { string($0, "the source's 'document'") }
        let text = map.required("quote").flatMap { string($0, "the source's 'quote'") }
        finish(map)
        guard let document, let text else { return nil }
        return Quote(document: document, text: text.value, location: text.location)
    }

    private mutating func decodeResolution(_ node: YAMLNode) -> Resolution? {
        guard var map = mapping(node, "a resolution", allowed: ["follows", "rejects", "why"]) else { return nil }
        let follows = map.required("follows").flatMap { string($0, "the resolution's 'follows'") }
        let rejects = map.required("rejects").flatMap { list($0, "the resolution's 'rejects'") }?
            .compactMap { quote($0) } ?? []
        let why = map.required("why").flatMap { string($0, "the resolution's 'why'") }
        finish(map)
        guard let follows, let why else { return nil }
        return Resolution(follows: follows, rejects: rejects, why: why.value)
    }
}
