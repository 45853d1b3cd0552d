/// Everything one file produced: its text (for carets), its root node if it parsed, and its diagnostics.
public struct YAMLLoadResult: Sendable {
    public let source: SourceText
    public let root: YAMLNode?
    public let diagnostics: [Diagnostic]
}

/// Loads one spec file into a located node tree. Strict by design: anchors, aliases, explicit tags,
/// duplicate keys, non-scalar keys, several documents and non-UTF-8 text are errors.
public enum YAMLLoader {
    /// Nesting past this depth is an error, and reading the file stops at the first node that deep.
    public static let maximumDepth = SpecLimits.depth

    /// The error at the first node deeper than ``maximumDepth``.
    static let tooDeep = "nesting is deeper than \(SpecLimits.depth) levels; reading stopped here"

    public static func load(_ bytes: [UInt8], file: String) -> YAMLLoadResult {
        let start = SourceLocation(file: file, line: 1, column: 1)
        if bytes.count > SpecLimits.fileBytes {
            // Not even split into lines: a huge file must not be echoed back or held twice.
            return YAMLLoadResult(source: SourceText(file: file, bytes: []), root: nil,
                                  diagnostics: [.error(BoundedFile.tooLargeMessage(bytes.count), at: start)])
        }
        // A UTF-8 byte order mark at the very start is allowed and ignored; columns count from after it.
        let body = bytes.starts(with: UTF8Check.byteOrderMark) ? Array(bytes.dropFirst(3)) : bytes
        let source = SourceText(file: file, bytes: body)
        if let encodingError = UTF8Check.firstProblem(in: body, source: source) {
            return YAMLLoadResult(source: source, root: nil, diagnostics: [encodingError])
        }
        let parser = LibYAMLParser(bytes: body, source: source)
        var builder = TreeBuilder(parser: parser, file: file)
        let root = builder.buildStream()
        return YAMLLoadResult(source: source, root: root, diagnostics: builder.finish())
    }

    public static func load(_ text: String, file: String) -> YAMLLoadResult {
        load(Array(text.utf8), file: file)
    }

}

/// Turns libyaml's event stream into nodes, recording every problem it can recover from.
private struct TreeBuilder {
    private let parser: LibYAMLParser
    private let file: String
    private var diagnostics = DiagnosticList()
    private var firstAnchorOrAlias: SourceLocation?
    private var moreAnchorsOrAliases = 0
    private var nodeCount = 0

    init(parser: LibYAMLParser, file: String) {
        self.parser = parser
        self.file = file
    }

    mutating func finish() -> [Diagnostic] {
        if let first = firstAnchorOrAlias {
            let more = moreAnchorsOrAliases == 0
                ? ""
                : " (\(moreAnchorsOrAliases) more in this file)"
            var all = diagnostics.diagnostics
            all.append(.error("anchors and aliases are not allowed in spec files; write the value out\(more)", at: first))
            return all.sorted { $0.location < $1.location }
        }
        return diagnostics.diagnostics
    }

    mutating func buildStream() -> YAMLNode? {
        do {
            var root: YAMLNode?
            var documents = 0
            while true {
                let (event, location) = try parser.next()
                switch event {
                case .streamStart, .documentEnd:
                    continue
                case .streamEnd:
                    return root
                case .documentStart:
                    documents += 1
                    if documents == 2 {
                        diagnostics.error("a spec file holds one YAML document; found a second one", at: location)
                    }
                    let (first, firstLocation) = try parser.next()
                    let node = try build(first, at: firstLocation, depth: 1)
                    if documents == 1 { root = node }
                default:
                    // libyaml always wraps nodes in a document; anything else is a parser bug.
                    diagnostics.error("unexpected YAML event", at: location)
                    return root
                }
            }
        } catch {
            diagnostics.error(error.message, at: error.location, notes: error.notes)
            return nil
        }
    }

    private mutating func build(
        _ event: LibYAMLParser.Event, at location: SourceLocation, depth: Int
    ) throws(LibYAMLParser.ParseError) -> YAMLNode {
        nodeCount += 1
        if nodeCount > SpecLimits.nodes {
            throw LibYAMLParser.ParseError(
                message: "the file has more than \(SpecLimits.nodes) nodes; reading stopped here", location: location)
        }
        if depth > YAMLLoader.maximumDepth {
            // Reading stops here rather than skipping the deeper content: libyaml's scanner does work in
            // proportion to the open flow collections for every token, so skipping 100,000 nested `[` through
            // it would take minutes. Stopping keeps a file of any depth linear.
            throw LibYAMLParser.ParseError(message: YAMLLoader.tooDeep, location: location)
        }
        switch event {
        case .alias:
            noteAnchorOrAlias(at: location)
            return YAMLNode(.scalar(YAMLScalar("")), at: location)
        case .scalar(let scalar, let anchor, let tag):
            check(anchor: anchor, tag: tag, at: location)
            let size = scalar.text.utf8.count
            guard size <= SpecLimits.scalarBytes else {
                diagnostics.error("a scalar may have at most \(SpecLimits.scalarBytes) bytes; this one has \(size)",
                                  at: location)
                return YAMLNode(.scalar(YAMLScalar("")), at: location)
            }
            return YAMLNode(.scalar(scalar), at: location)
        case .sequenceStart(let anchor, let tag):
            check(anchor: anchor, tag: tag, at: location)
            var items: [YAMLNode] = []
            var read = 0
            while true {
                let (next, nextLocation) = try parser.next()
                if case .sequenceEnd = next { break }
                read += 1
                if read > SpecLimits.sequenceItems {
                    diagnostics.error("a list may have at most \(SpecLimits.sequenceItems) items", at: nextLocation)
                    try skip(next)
                    try skipEvents(open: 1)
                    break
                }
                items.append(try build(next, at: nextLocation, depth: depth + 1))
            }
            return YAMLNode(.sequence(items), at: location)
        case .mappingStart(let anchor, let tag):
            check(anchor: anchor, tag: tag, at: location)
            return YAMLNode(.mapping(try buildEntries(depth: depth)), at: location)
        default:
            diagnostics.error("unexpected YAML event", at: location)
            return YAMLNode(.scalar(YAMLScalar("")), at: location)
        }
    }

    /// Consumes the rest of a node whose first event is `event`, without building it.
    private mutating func skip(_ event: LibYAMLParser.Event) throws(LibYAMLParser.ParseError) {
        switch event {
        case .sequenceStart, .mappingStart: try skipEvents(open: 1)
        default: return
        }
    }

    /// Consumes events until `open` lists or mappings have closed, without recursion and without copying the
    /// events out of libyaml: the rest of a list or mapping past its item limit costs little per event.
    private mutating func skipEvents(open initial: Int) throws(LibYAMLParser.ParseError) {
        var open = initial
        while open > 0 {
            open += try parser.skipEvent()
        }
    }

    private mutating func buildEntries(depth: Int) throws(LibYAMLParser.ParseError) -> [YAMLEntry] {
        var entries: [YAMLEntry] = []
        var read = 0
        var firstKeyLocation: [String: SourceLocation] = [:]
        while true {
            let (keyEvent, keyLocation) = try parser.next()
            if case .mappingEnd = keyEvent { break }
            read += 1
            if read > SpecLimits.sequenceItems {
                diagnostics.error("a mapping may have at most \(SpecLimits.sequenceItems) entries", at: keyLocation)
                try skip(keyEvent)
                try skip(try parser.next().0)
                try skipEvents(open: 1)
                break
            }
            let keyNode = try build(keyEvent, at: keyLocation, depth: depth + 1)
            let (valueEvent, valueLocation) = try parser.next()
            let value = try build(valueEvent, at: valueLocation, depth: depth + 1)
            guard let key = keyNode.scalar?.text else {
                diagnostics.error("mapping keys must be plain strings, found \(keyNode.kindDescription)", at: keyLocation)
                continue
            }
            if let first = firstKeyLocation[key] {
                diagnostics.error(
                    "duplicate key '\(key)'", at: keyLocation,
                    notes: [.init("'\(key)' first defined here", at: first)])
                continue
            }
            firstKeyLocation[key] = keyLocation
            entries.append(YAMLEntry(key: key, keyLocation: keyLocation, value: value))
        }
        return entries
    }

    private mutating func check(anchor: Bool, tag: String?, at location: SourceLocation) {
        if anchor { noteAnchorOrAlias(at: location) }
        if let tag {
            diagnostics.error("explicit tags are not allowed in spec files (found '\(tag)')", at: location)
        }
    }

    /// Reported once per file with a count, so an alias bomb yields one line and no expansion.
    private mutating func noteAnchorOrAlias(at location: SourceLocation) {
        if firstAnchorOrAlias == nil {
            firstAnchorOrAlias = location
        } else {
            moreAnchorsOrAliases += 1
        }
    }
}
