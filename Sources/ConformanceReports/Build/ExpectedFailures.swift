import Foundation
import SpecModel
import SpecYAML

/// The failures a team expects while porting the design (`--expected-failures FILE`): requirement or case
/// IDs, each with a reason. They are reported `known` instead of `fail`, and one that passes is reported
/// as an unexpected pass. The file is YAML, read with the suite's own loader:
///
/// ```yaml
/// - id: REFRESH-SINGLE-FLIGHT
///   reason: each 401 refreshes on its own until APP-123 lands
/// - id: rapid-switching
///   reason: the account switch is not cancellable yet
/// ```
public struct ExpectedFailures: Sendable {
    public struct Entry: Sendable {
        public let id: String
        public let kind: ExpectedFailuresReport.Entry.Kind
        public let reason: String
        public let location: SourceLocation
    }

    public let file: String
    public let entries: [Entry]

    /// Why the file cannot be used, with every problem located, and the rendered text (compiler style).
    public struct LoadError: Error, Sendable {
        public let diagnostics: [Diagnostic]
        public let rendered: String
    }

    public init(file: String, entries: [Entry]) {
        self.file = file
        self.entries = entries
    }

    public static func load(path: String, bundle: SpecBundle) throws(LoadError) -> ExpectedFailures {
        let message: String
        switch BoundedFile.read(path) {
        case .success(let bytes): return try parse(bytes: bytes, file: path, bundle: bundle)
        case .failure(.tooLarge(let size)): message = BoundedFile.tooLargeMessage(size, what: "an expected-failures file")
        case .failure(.unreadable(let reason)): message = "cannot read the expected-failures file (\(reason))"
        }
        let diagnostic = Diagnostic.error(message, at: SourceLocation(file: path, line: 1, column: 1))
        throw LoadError(diagnostics: [diagnostic], rendered: DiagnosticRenderer().render([diagnostic]))
    }

    public static func parse(bytes: [UInt8], file: String, bundle: SpecBundle) throws(LoadError) -> ExpectedFailures {
        let loaded = YAMLLoader.load(bytes, file: file)
        var diagnostics = DiagnosticList()
        diagnostics.append(contentsOf: loaded.diagnostics)
        var entries: [Entry] = []
        if let root = loaded.root, loaded.diagnostics.isEmpty {
            entries = decode(root, bundle: bundle, diagnostics: &diagnostics)
        }
        guard !diagnostics.hasErrors else {
            throw LoadError(diagnostics: diagnostics.diagnostics,
                            rendered: DiagnosticRenderer(sources: [loaded.source]).render(diagnostics.diagnostics))
        }
        return ExpectedFailures(file: file, entries: entries)
    }

    private static func decode(_ root: YAMLNode, bundle: SpecBundle, diagnostics: inout DiagnosticList) -> [Entry] {
        if case .scalar(let scalar) = root.content, scalar.resolved == .null { return [] }
        guard let items = root.sequence else {
            diagnostics.error("expected a list of expected failures (each '- id: ...' with a 'reason'), found \(root.kindDescription)",
                              at: root.location)
            return []
        }
        let requirementIDs = Set(bundle.requirements.map(\.id))
        // A case as written covers all its trigger variants; a variant's own ID names one.
        let caseIDs = Set(bundle.playableCases.map(\.id) + bundle.cases.map(\.id))
        var seen: [String: SourceLocation] = [:]
        var entries: [Entry] = []
        for item in items {
            guard let mapping = item.mapping else {
                diagnostics.error("each expected failure is a mapping with 'id' and 'reason', found \(item.kindDescription)",
                                  at: item.location)
                continue
            }
            var id: (String, SourceLocation)?
            var reason: String?
            for entry in mapping {
                switch entry.key {
                case "id", "reason":
                    guard let scalar = entry.value.scalar, scalar.resolved != .null,
                          !scalar.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                        diagnostics.error("'\(entry.key)' must be a non-empty string, found \(entry.value.kindDescription)",
                                          at: entry.value.location)
                        continue
                    }
                    let trimmed = scalar.text.trimmingCharacters(in: .whitespacesAndNewlines)
                    if entry.key == "id" { id = (trimmed, entry.value.location) } else { reason = trimmed }
                default:
                    diagnostics.error("unknown key '\(entry.key)'\(Suggestion.hint(for: entry.key, among: ["id", "reason"]))",
                                      at: entry.keyLocation)
                }
            }
            guard let (identifier, location) = id else {
                diagnostics.error("an expected failure needs an 'id': a requirement or case ID", at: item.location)
                continue
            }
            guard let reason else {
                diagnostics.error("expected failure '\(identifier)' needs a 'reason'", at: item.location)
                continue
            }
            if let first = seen[identifier] {
                diagnostics.error("'\(identifier)' is listed twice", at: location,
                                  notes: [Diagnostic.Note("first listed here", at: first)])
                continue
            }
            seen[identifier] = location
            if requirementIDs.contains(identifier) {
                entries.append(Entry(id: identifier, kind: .requirement, reason: reason, location: location))
            } else if caseIDs.contains(identifier) {
                entries.append(Entry(id: identifier, kind: .case, reason: reason, location: location))
            } else {
                diagnostics.error("'\(identifier)' is neither a requirement nor a case of the spec"
                                  + Suggestion.hint(for: identifier, among: requirementIDs.union(caseIDs)), at: location)
            }
        }
        return entries
    }
}
