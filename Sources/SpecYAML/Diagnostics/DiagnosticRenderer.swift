/// Renders diagnostics the way compilers do: `file:line:column: error: message`, the source line, a caret.
public struct DiagnosticRenderer: Sendable {
    private var sources: [String: SourceText] = [:]

    public init(sources: [SourceText] = []) {
        for source in sources { self.sources[source.file] = source }
    }

    public mutating func add(_ source: SourceText) {
        sources[source.file] = source
    }

    public func render(_ diagnostic: Diagnostic) -> String {
        var text = renderOne(diagnostic.severity, diagnostic.message, diagnostic.location)
        for note in diagnostic.notes {
            text += renderOne(.note, note.message, note.location)
        }
        return text
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined()
    }

    private func renderOne(_ severity: Diagnostic.Severity, _ message: String, _ location: SourceLocation) -> String {
        var text = "\(location): \(severity.rawValue): \(message)\n"
        if let line = sources[location.file]?.line(location.line) {
            text += line + "\n" + Self.caretLine(under: line, column: location.column) + "\n"
        }
        return text
    }

    /// Spaces up to the column (tabs kept as tabs so the caret lines up), then `^`.
    static func caretLine(under line: String, column: Int) -> String {
        var padding = ""
        for scalar in line.unicodeScalars.prefix(max(column - 1, 0)) {
            padding.append(scalar == "\t" ? "\t" : " ")
        }
        return padding + "^"
    }
}
