import SpecYAML

extension CaseStep {
    /// A step built in code (by `explore`) from its kind and its arguments as plain YAML scalars, read by the
    /// same rules as a step in a file; nil when those rules refuse it.
    public static func building(_ kind: String, _ arguments: [(key: String, value: String)], file: String = "<generated>")
        -> CaseStep?
    {
        let location = SourceLocation(file: file, line: 1, column: 1)
        let node = YAMLNode(.mapping(arguments.map {
            YAMLEntry(key: $0.key, keyLocation: location, value: YAMLNode(.scalar(YAMLScalar($0.value)), at: location))
        }), at: location)
        guard StepKind.all.contains(kind) else { return nil }
        var decoder = SpecDecoder()
        guard let action = decoder.stepAction(kind, node), !decoder.diagnostics.hasErrors else { return nil }
        return CaseStep(kind: kind, action: action, arguments: node, location: location)
    }

    /// The step as one line of a case file's `steps` list (flow style): `- request: { resource: inbox, count: 2 }`.
    /// Arguments are written as plain scalars, which is what `building` reads; anything else is quoted.
    public var flowLine: String {
        let entries = arguments.mapping ?? []
        guard !entries.isEmpty else { return "- \(kind): {}" }
        let fields = entries.map { entry -> String in
            let text = entry.value.scalar?.text ?? ""
            return "\(entry.key): \(CaseStep.plainOrQuoted(text))"
        }
        return "- \(kind): { \(fields.joined(separator: ", ")) }"
    }

    private static func plainOrQuoted(_ text: String) -> String {
        let safe = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "-_./*".contains($0) }
            && !text.hasPrefix("*")
        return safe ? text : "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
