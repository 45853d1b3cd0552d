import SpecYAML
import Testing

@Suite("Rendering diagnostics like a compiler")
struct DiagnosticRendererTests {
    @Test("an error prints its position, the source line and a caret under the column")
    func rendersLineAndCaret() {
        let source = SourceText(file: "Specs/cases/refresh.yaml", text: "cases:\n  - id: x\n    requirments: [A]\n")
        let renderer = DiagnosticRenderer(sources: [source])
        let diagnostic = Diagnostic.error(
            "unknown key 'requirments' (did you mean 'requirements'?)",
            at: SourceLocation(file: "Specs/cases/refresh.yaml", line: 3, column: 5))
        #expect(renderer.render(diagnostic) == """
            Specs/cases/refresh.yaml:3:5: error: unknown key 'requirments' (did you mean 'requirements'?)
                requirments: [A]
                ^

            """)
    }

    @Test("tabs before the column are kept so the caret lines up, and notes follow the error")
    func tabsAndNotes() {
        let source = SourceText(file: "a.yaml", text: "\tkey: 1\nkey: 2")
        let renderer = DiagnosticRenderer(sources: [source])
        let diagnostic = Diagnostic.error(
            "duplicate key 'key'", at: SourceLocation(file: "a.yaml", line: 2, column: 1),
            notes: [.init("first defined here", at: SourceLocation(file: "a.yaml", line: 1, column: 2))])
        #expect(renderer.render(diagnostic) == "a.yaml:2:1: error: duplicate key 'key'\nkey: 2\n^\n"
            + "a.yaml:1:2: note: first defined here\n\tkey: 1\n\t^\n")
    }

    @Test("a location outside the known text prints the message alone")
    func unknownSource() {
        let renderer = DiagnosticRenderer()
        let diagnostic = Diagnostic.error("cannot read the file", at: SourceLocation(file: "gone.yaml", line: 1, column: 1))
        #expect(renderer.render(diagnostic) == "gone.yaml:1:1: error: cannot read the file\n")
    }
}
