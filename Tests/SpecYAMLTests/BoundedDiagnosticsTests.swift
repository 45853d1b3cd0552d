import SpecYAML
import Testing

@Suite("Diagnostic output is bounded")
struct BoundedDiagnosticsTests {
    @Test("a long line is shown as a window around the column, the caret under the right character")
    func windowedLine() {
        let line = String(repeating: "a", count: 200) + "X" + String(repeating: "b", count: 200)
        let renderer = DiagnosticRenderer(sources: [SourceText(file: "w.yaml", text: line)])
        let rendered = renderer.render(Diagnostic.error("here", at: SourceLocation(file: "w.yaml", line: 1, column: 201)))
        let expected = "w.yaml:1:201: error: here\n"
            + "..." + String(repeating: "a", count: 60) + "X" + String(repeating: "b", count: 59) + "...\n"
            + String(repeating: " ", count: 63) + "^\n"
        #expect(rendered == expected)
    }

    @Test("a column near the start of a long line keeps the line's start and cuts its end")
    func windowAtStart() {
        let line = "ab" + String(repeating: "c", count: 300)
        let renderer = DiagnosticRenderer(sources: [SourceText(file: "w.yaml", text: line)])
        let rendered = renderer.render(Diagnostic.error("here", at: SourceLocation(file: "w.yaml", line: 1, column: 2)))
        #expect(rendered == "w.yaml:1:2: error: here\nab" + String(repeating: "c", count: 118) + "...\n ^\n")
    }

    @Test("past 50 diagnostics in a file the rest are counted in one line")
    func perFileCap() {
        let source = SourceText(file: "d.yaml", text: "k: v")
        let diagnostics = (1...60).map { Diagnostic.error("problem \($0)", at: SourceLocation(file: "d.yaml", line: 1, column: 1)) }
        let rendered = DiagnosticRenderer(sources: [source]).render(diagnostics)
        let shown = (1...50).map { "d.yaml:1:1: error: problem \($0)\nk: v\n^\n" }.joined()
        #expect(rendered == shown + "d.yaml: note: and 10 more diagnostics in this file, not shown (at most 50 per file)\n")
    }

    @Test("the whole output stays within its byte limit and says how much was left out")
    func totalCap() {
        let long = String(repeating: "z", count: 100)
        let files = (1...200).map { SourceText(file: "f\($0).yaml", text: long) }
        let diagnostics = files.flatMap { file in
            (1...50).map { _ in Diagnostic.error(String(repeating: "m", count: 400), at: SourceLocation(file: file.file, line: 1, column: 5)) }
        }
        let rendered = DiagnosticRenderer(sources: files).render(diagnostics)
        #expect(rendered.utf8.count <= SpecLimits.diagnosticBytes + 200)
        #expect(rendered.hasSuffix("diagnostics, not shown (diagnostic output is limited to 262144 bytes)\n"))
    }

    @Test("a very long message is cut with an ellipsis")
    func longMessage() {
        let rendered = DiagnosticRenderer().render(
            Diagnostic.error(String(repeating: "k", count: 2_000), at: SourceLocation(file: "m.yaml", line: 1, column: 1)))
        #expect(rendered == "m.yaml:1:1: error: " + String(repeating: "k", count: 500) + "…\n")
    }
}
