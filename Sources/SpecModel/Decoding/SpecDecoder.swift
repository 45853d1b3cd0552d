import SpecYAML

/// Reads nodes into typed values, recording a diagnostic for every problem instead of stopping at the first.
/// Each reader returns nil when the value is unusable, so callers can carry on and find more problems.
struct SpecDecoder {
    var diagnostics = DiagnosticList()
    /// Kinds of definition of which at least one could not be read; references to them are not checked.
    var incomplete: Set<DefinitionKind> = []

    /// Records that a list of definitions lost entries (or was unreadable), so references into it are not trusted.
    mutating func track<T>(_ kind: DefinitionKind, nodes: [YAMLNode]?, decoded: [T]) -> [T] {
        if nodes?.count != decoded.count { incomplete.insert(kind) }
        return decoded
    }

    mutating func error(_ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.error(message, at: location, notes: notes)
    }

    /// Opens a mapping whose keys must all be in `allowed`.
    mutating func mapping(_ node: YAMLNode, _ what: String, allowed: [String]) -> MappingReader? {
        guard let entries = node.mapping else {
            error("expected \(what) to be a mapping, found \(node.kindDescription)", at: node.location)
            return nil
        }
        return MappingReader(node: node, entries: entries, what: what, allowed: allowed)
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard let scalar = node.scalar else {
            error("expected \(what) to be a string, found \(node.kindDescription)", at: node.location)
            return nil
        }
        switch scalar.resolved {
        case .string:
            break
        case .null:
            error("expected \(what) to be a string, found null", at: node.location)
            return nil
        default:
            error("expected \(what) to be a string, found \(scalar.kindDescription); quote it to make it text",
                  at: node.location)
            return nil
        }
        let text = scalar.text.trimmingWhitespace()
        if text.isEmpty {
            error("\(what) must not be empty", at: node.location)
            return nil
        }
        return Located(text, at: node.location)
    }

    mutating func integer(_ node: YAMLNode, _ what: String) -> Located<Int>? {
        guard case .int(let value)? = node.scalar?.resolved else {
            error("expected \(what) to be an integer, found \(node.kindDescription)", at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A string that must be one of `choices`.
    mutating func choice<T: RawRepresentable<String> & CaseIterable & Sendable>(
        _ node: YAMLNode, _ what: String, as type: T.Type
    ) -> Located<T>? {
        guard let text = string(node, what) else { return nil }
        guard let value = T(rawValue: text.value) else {
            let names = T.allCases.map(\.rawValue)
            error("\(what) '\(text.value)' is not one of \(names.joined(separator: ", "))"
                  + Suggestion.hint(for: text.value, among: names), at: node.location)
            return nil
        }
        return Located(value, at: node.location)
    }

    /// A string that must match an identifier pattern, described in words for the message.
    mutating func identifier(_ node: YAMLNode, _ what: String, pattern: IdentifierPattern) -> Located<String>? {
        guard let text = string(node, what) else { return nil }
        // Identifiers are matched as written: surrounding spaces are not trimmed away.
        guard let raw = node.scalar?.text, pattern.matches(raw) else {
            error("\(what) '\(text.value)' must be \(pattern.description)", at: node.location)
            return nil
        }
        return text
    }

    /// A list; `allowEmpty` false makes an empty list an error.
    mutating func list(_ node: YAMLNode, _ what: String, allowEmpty: Bool = false) -> [YAMLNode]? {
        guard let items = node.sequence else {
            error("expected \(what) to be a list, found \(node.kindDescription)", at: node.location)
            return nil
        }
        if items.isEmpty, !allowEmpty {
            error("\(what) must not be empty", at: node.location)
        }
        return items
    }

    mutating func stringList(_ node: YAMLNode, _ what: String, allowEmpty: Bool = false) -> [Located<String>] {
        guard let items = list(node, what, allowEmpty: allowEmpty) else { return [] }
        var seen: [String: SourceLocation] = [:]
        var values: [Located<String>] = []
        for item in items {
            guard let value = string(item, "each entry of \(what)") else { continue }
            if let first = seen[value.value] {
                error("'\(value.value)' is listed twice in \(what)", at: value.location,
                      notes: [.init("first listed here", at: first)])
                continue
            }
            seen[value.value] = value.location
            values.append(value)
        }
        return values
    }

    /// Closes a mapping: unknown keys are reported with a suggestion, missing ones not already explained by a typo.
    mutating func finish(_ reader: MappingReader) {
        var suggested: Set<String> = []
        for entry in reader.entries where !reader.allowed.contains(entry.key) {
            let suggestion = Suggestion.closest(to: entry.key, among: reader.allowed)
            if let suggestion { suggested.insert(suggestion) }
            let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            error("unknown key '\(entry.key)' in \(reader.what)\(hint)", at: entry.keyLocation)
        }
        for key in reader.missing where !suggested.contains(key) {
            error("\(reader.what) is missing required key '\(key)'", at: reader.node.location)
        }
    }
}

/// The entries of one mapping, read by key; remembers which required keys were missing.
struct MappingReader {
    let node: YAMLNode
    let entries: [YAMLEntry]
    /// How messages name the mapping; refined once its ID has been read.
    var what: String
    let allowed: [String]
    private(set) var missing: [String] = []

    init(node: YAMLNode, entries: [YAMLEntry], what: String, allowed: [String]) {
        self.node = node
        self.entries = entries
        self.what = what
        self.allowed = allowed
    }

    func optional(_ key: String) -> YAMLNode? {
        entries.first { $0.key == key }?.value
    }

    mutating func required(_ key: String) -> YAMLNode? {
        if let value = optional(key) { return value }
        missing.append(key)
        return nil
    }
}

/// The identifier forms the spec files use.
enum IdentifierPattern: CustomStringConvertible {
    /// `REFRESH-SINGLE-FLIGHT`
    case upperKebab
    /// `refresh-five-concurrent-401s`
    case lowerKebab
    /// `signedOut`
    case lowerCamel

    func matches(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, scalars.allSatisfy(\.isASCII) else { return false }
        let isUpper = { (c: Unicode.Scalar) in ("A"..."Z").contains(c) }
        let isLower = { (c: Unicode.Scalar) in ("a"..."z").contains(c) }
        let isDigit = { (c: Unicode.Scalar) in ("0"..."9").contains(c) }
        switch self {
        case .upperKebab:
            return isUpper(first) && text.contains("-") && !text.hasSuffix("-") && !text.contains("--")
                && scalars.allSatisfy { isUpper($0) || isDigit($0) || $0 == "-" }
        case .lowerKebab:
            return isLower(first) && !text.hasSuffix("-") && !text.contains("--")
                && scalars.allSatisfy { isLower($0) || isDigit($0) || $0 == "-" }
        case .lowerCamel:
            return isLower(first) && scalars.allSatisfy { isLower($0) || isUpper($0) || isDigit($0) }
        }
    }

    var description: String {
        switch self {
        case .upperKebab: "upper-case words joined by hyphens, like REFRESH-SINGLE-FLIGHT"
        case .lowerKebab: "lower-case words joined by hyphens, like refresh-started"
        case .lowerCamel: "lowerCamelCase letters and digits, like signedOut"
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
