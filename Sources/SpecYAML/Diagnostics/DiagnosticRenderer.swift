/// Renders diagnostics the way compilers do: `file:line:column: error: message`, the source line, a caret.
///
/// Output is bounded whatever the input: a long line is shown as a window around the column, a long message
/// is shortened, at most ``SpecLimits/errorsPerFile`` diagnostics are shown per file and at most
/// ``SpecLimits/diagnosticBytes`` bytes in all; what is left out is counted.
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

    /// Renders in the order given, within the per-file and total limits.
    public func render(_ diagnostics: [Diagnostic]) -> String {
        var text = ""
        var shownPerFile: [String: Int] = [:]
        var hiddenPerFile: [String: Int] = [:]
        var fileOrder: [String] = []
        var overBudget = 0
        for diagnostic in diagnostics {
            let file = diagnostic.location.file
            if shownPerFile[file] == nil, hiddenPerFile[file] == nil { fileOrder.append(file) }
            guard shownPerFile[file, default: 0] < SpecLimits.errorsPerFile else {
                hiddenPerFile[file, default: 0] += 1
                continue
            }
            let rendered = render(diagnostic)
            guard text.utf8.count + rendered.utf8.count <= SpecLimits.diagnosticBytes else {
                overBudget += 1
                continue
            }
            shownPerFile[file, default: 0] += 1
            text += rendered
        }
        for file in fileOrder {
            guard let hidden = hiddenPerFile[file] else { continue }
            text += "\(file): note: and \(hidden) more \(hidden == 1 ? "diagnostic" : "diagnostics") in this file, "
                + "not shown (at most \(SpecLimits.errorsPerFile) per file)\n"
        }
        if overBudget > 0 {
            text += "note: and \(overBudget) more \(overBudget == 1 ? "diagnostic" : "diagnostics"), not shown "
                + "(diagnostic output is limited to \(SpecLimits.diagnosticBytes) bytes)\n"
        }
        return text
    }

    /// The longest message shown whole; longer ones (quoting huge keys, say) are cut with an ellipsis.
    static let maximumMessageLength = 500

    private func renderOne(_ severity: Diagnostic.Severity, _ message: String, _ location: SourceLocation) -> String {
        let shown = message.unicodeScalars.count > Self.maximumMessageLength
            ? String(String.UnicodeScalarView(message.unicodeScalars.prefix(Self.maximumMessageLength))) + "…"
            : message
        var text = "\(location): \(severity.rawValue): \(shown)\n"
        if let line = sources[location.file]?.line(location.line) {
            let (window, column) = Self.window(of: line, around: location.column)
            text += window + "\n" + Self.caretLine(under: window, column: column) + "\n"
        }
        return text
    }

    /// At most ``SpecLimits/sourceLineWindow`` characters of `line` around `column`, with `...` where it was
    /// cut, and the column within that window.
    static func window(of line: String, around column: Int) -> (text: String, column: Int) {
        let width = SpecLimits.sourceLineWindow
        let scalars = line.unicodeScalars
        let count = scalars.count
        guard count > width else { return (line, column) }
        let target = min(max(column - 1, 0), count)
        let start = max(0, min(target - width / 2, count - width))
        let end = start + width
        let lower = scalars.index(scalars.startIndex, offsetBy: start)
        let upper = scalars.index(lower, offsetBy: width)
        let head = start > 0 ? "..." : ""
        let tail = end < count ? "..." : ""
        let text = head + String(String.UnicodeScalarView(scalars[lower..<upper])) + tail
        return (text, target - start + head.count + 1)
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
