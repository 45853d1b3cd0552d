import SpecYAML
import Testing

@Suite("Loading YAML into located nodes")
struct YAMLLoaderTests {
    @Test("nodes carry 1-based lines and columns of their file")
    func locationsAreOneBased() throws {
        let result = YAMLLoader.load("kind: cases\nlist:\n  - first\n  - second: 2\n", file: "x.yaml")
        #expect(result.diagnostics.isEmpty)
        let entries = try #require(result.root?.mapping)
        #expect(entries[0].keyLocation == SourceLocation(file: "x.yaml", line: 1, column: 1))
        #expect(entries[0].value.location == SourceLocation(file: "x.yaml", line: 1, column: 7))
        let items = try #require(entries[1].value.sequence)
        #expect(items[0].location == SourceLocation(file: "x.yaml", line: 3, column: 5))
        #expect(items[1].mapping?.first?.keyLocation == SourceLocation(file: "x.yaml", line: 4, column: 5))
    }

    @Test("plain scalars resolve by the core schema; quoted ones stay strings")
    func scalarsResolve() throws {
        let result = YAMLLoader.load("a: true\nb: \"true\"\nc: 12\nd: ~\ne: yes\nf: 1.5\n", file: "x.yaml")
        let values = try #require(result.root?.mapping).map { $0.value.scalar?.resolved }
        #expect(values == [.bool(true), .string("true"), .int(12), .null, .string("yes"), .double(1.5)])
    }

    @Test("columns count characters, not bytes, after non-ASCII text")
    func columnsCountCharacters() throws {
        let result = YAMLLoader.load("title: \"→ café\"\nnext: [a, b]\nmore: {k: é, v: x}\n", file: "x.yaml")
        let entries = try #require(result.root?.mapping)
        let inner = try #require(entries[2].value.mapping)
        #expect(inner[1].keyLocation.column == 14)
    }

    @Test("a UTF-16 file is rejected at line 1 with the reason")
    func utf16IsRejected() {
        let result = YAMLLoader.load([0xFF, 0xFE, 0x6B, 0x00], file: "x.yaml")
        #expect(result.root == nil)
        #expect(result.diagnostics.map(\.message) == [
            "spec files must be UTF-8; this one starts with a UTF-16 byte order mark",
        ])
    }

    @Test("a byte that is not UTF-8 is reported at its line and column")
    func invalidUTF8HasAPosition() {
        let result = YAMLLoader.load(Array("a: 1\nb: x".utf8) + [0xC3, 0x28], file: "x.yaml")
        #expect(result.diagnostics.first?.location == SourceLocation(file: "x.yaml", line: 2, column: 5))
    }

    @Test("every duplicate key of a file is reported, each with a note at the first one")
    func allDuplicatesAreReported() {
        let result = YAMLLoader.load("a: 1\nb: 2\na: 3\nnested:\n  x: 1\n  x: 2\n", file: "x.yaml")
        #expect(result.diagnostics.map(\.message) == ["duplicate key 'a'", "duplicate key 'x'"])
        #expect(result.diagnostics.map(\.location.line) == [3, 6])
        #expect(result.diagnostics.map { $0.notes.first?.location.line } == [1, 5])
    }

    @Test("an alias bomb is refused without expanding it")
    func aliasBombIsRefused() {
        var text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"] {
            text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
            previous = name
        }
        let result = YAMLLoader.load(text, file: "bomb.yaml")
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.message.hasPrefix("anchors and aliases are not allowed") == true)
        #expect(result.diagnostics.first?.message.hasSuffix("(132 more in this file)") == true)
    }

    @Test("nodes convert to JSON text with resolved scalars")
    func jsonText() {
        let result = YAMLLoader.load("a: [1, \"2\", true, ~]\nb: \"quote \\\" and \\n\"\n", file: "x.yaml")
        #expect(result.root?.jsonText() == #"{"a":[1,"2",true,null],"b":"quote \" and \n"}"#)
    }
}
