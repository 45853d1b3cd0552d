import SpecYAML
import Testing

/// Input built to exhaust the loader: each gives one positioned error, never a crash, in bounded work.
@Suite("Hostile YAML input")
struct HostileYAMLTests {
    static let header = "kind: cases\nversion: 1\n"

    static func errors(_ text: String) -> [String] {
        YAMLLoader.load(text, file: "h.yaml").diagnostics.map { "\($0.location): \($0.message)" }
    }

    @Test("10,000 nested flow lists stop at the depth limit with one error")
    func deepFlowLists() {
        let text = Self.header + "cases: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(Self.errors(text) == ["h.yaml:3:71: nesting is deeper than 64 levels; reading stopped here"])
    }

    @Test("1,810 nested flow mappings stop at the depth limit with one error")
    func deepFlowMappings() {
        let text = Self.header + "cases: " + String(repeating: "{a: ", count: 1_810) + String(repeating: "}", count: 1_810)
        #expect(Self.errors(text) == ["h.yaml:3:257: nesting is deeper than 64 levels; reading stopped here"])
    }

    @Test("10,000 block list markers on one line stop at the depth limit with one error")
    func deepBlockLists() {
        let text = Self.header + "cases:\n" + String(repeating: "- ", count: 10_000) + "x\n"
        #expect(Self.errors(text) == ["h.yaml:4:127: nesting is deeper than 64 levels; reading stopped here"])
    }

    @Test("5,000 explicit keys stop at the depth limit with one error")
    func deepExplicitKeys() {
        let errors = Self.errors(Self.header + "cases:\n" + String(repeating: "? ", count: 5_000) + "x\n")
        #expect(errors == ["h.yaml:4:129: nesting is deeper than 64 levels; reading stopped here"])
    }

    @Test("100,000 nested flow lists, mappings and block lists each stop reading at the first node past the limit",
          arguments: [("[", "]", 66), ("{a: ", "}", 252), ("- ", "", 129)])
    func hundredThousandLevels(open: String, close: String, column: Int) {
        // Skipping the deeper content through libyaml would cost time in proportion to the depth for every
        // level: minutes for this file. Reading stops instead.
        let text = "a:\n  " + String(repeating: open, count: 100_000) + "x" + String(repeating: close, count: 100_000) + "\n"
        #expect(Self.errors(text) == ["h.yaml:2:\(column): nesting is deeper than 64 levels; reading stopped here"])
    }

    @Test("a list longer than the limit is an error at its first extra item, and the rest is not kept")
    func longList() throws {
        let items = (0...SpecLimits.sequenceItems).map { _ in "1" }.joined(separator: ", ")
        let result = YAMLLoader.load("a: [" + items + "]\n", file: "h.yaml")
        #expect(result.diagnostics.map(\.message) == ["a list may have at most 10000 items"])
        let list = try #require(result.root?.mapping?.first?.value.sequence)
        #expect(list.count == SpecLimits.sequenceItems)
    }

    @Test("a scalar longer than the limit is an error at the scalar")
    func longScalar() {
        let text = "a: " + String(repeating: "y", count: SpecLimits.scalarBytes + 1) + "\n"
        #expect(Self.errors(text) == ["h.yaml:1:4: a scalar may have at most 65536 bytes; this one has 65537"])
    }

    @Test("a file with more nodes than the limit stops reading with one error")
    func manyNodes() {
        let line = "- [" + Array(repeating: "1", count: 999).joined(separator: ",") + "]\n"
        let text = String(repeating: line, count: 101)
        let errors = Self.errors(text)
        #expect(errors.count == 1)
        #expect(errors.first?.hasSuffix("the file has more than 100000 nodes; reading stopped here") == true)
    }

    @Test("a file over the size limit is refused at line 1 without being read into lines")
    func hugeFile() {
        let result = YAMLLoader.load([UInt8](repeating: 0, count: SpecLimits.fileBytes + 1), file: "h.yaml")
        #expect(result.diagnostics.map(\.message) == ["the file has 4194305 bytes; a spec file may have at most 4194304 (4 MiB)"])
        #expect(result.source.lines == [""])
    }

    @Test("a byte order mark at the start is accepted, also right before the first key")
    func leadingByteOrderMark() throws {
        let result = YAMLLoader.load([0xEF, 0xBB, 0xBF] + Array("kind: cases\nversion: 1\n".utf8), file: "h.yaml")
        #expect(result.diagnostics.isEmpty)
        #expect(result.root?.mapping?.map(\.key) == ["kind", "version"])
        #expect(result.root?.mapping?.first?.keyLocation.column == 1)
    }

    @Test("a byte order mark anywhere else is an error at its place")
    func innerByteOrderMark() {
        let bytes = Array("# comment\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("kind: cases\n".utf8)
        #expect(YAMLLoader.load(bytes, file: "h.yaml").diagnostics.map { "\($0.location): \($0.message)" }
            == ["h.yaml:2:1: a byte order mark (U+FEFF) is allowed only at the very start of a spec file"])
    }
}
