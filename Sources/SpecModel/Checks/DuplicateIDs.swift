import SpecYAML

/// Reports every ID used twice, pointing at the second use with a note at the first.
func duplicateIDs(_ items: [(id: String, location: SourceLocation)], _ what: String) -> [Diagnostic] {
    var first: [String: SourceLocation] = [:]
    var diagnostics: [Diagnostic] = []
    for item in items {
        if let earlier = first[item.id] {
            diagnostics.append(.error("duplicate \(what) '\(item.id)'", at: item.location,
                                      notes: [.init("first defined here", at: earlier)]))
        } else {
            first[item.id] = item.location
        }
    }
    return diagnostics
}

/// Resolves references to IDs, reporting unknown ones with a suggestion. References into a kind of
/// definition that lost entries to earlier errors are not reported: the entry may be the broken one.
struct ReferenceResolver {
    let incomplete: Set<DefinitionKind>

    func check(
        _ reference: Located<String>, _ kind: DefinitionKind, known: [String], in place: String
    ) -> Diagnostic? {
        guard !known.contains(reference.value), !incomplete.contains(kind) else { return nil }
        return .error(
            "unknown \(kind.rawValue) '\(reference.value)' in \(place)"
                + Suggestion.hint(for: reference.value, among: known),
            at: reference.location)
    }
}
