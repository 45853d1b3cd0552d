import Foundation
import SpecModel
import SpecYAML
import Testing

@Suite("Spec version")
struct SpecVersionTests {
    static func load(_ specVersionLine: String) -> SpecLoadResult {
        let text = """
            kind: requirements
            version: 1
            \(specVersionLine)
            documents:
              - file: mini.txt
                title: A small design note
                coverage: partial
            capabilities: []
            requirements:
              - id: MINI-SINGLE-FLIGHT
                level: MUST
                title: One refresh in flight
                statement: The client MUST keep one refresh in flight.
                source:
                  - document: mini.txt
                    quote: "Keep one refresh in flight."

            """
        var result = SpecLoadResult()
        SpecLoader.load(bytes: Array(text.utf8), file: "requirements.yaml", into: &result)
        return result
    }

    @Test("specVersion in requirements.yaml is the bundle's spec version")
    func loadsTheVersion() throws {
        let result = Self.load(#"specVersion: "2.10""#)
        #expect(result.diagnostics.isEmpty)
        let version = try #require(result.bundle.specVersion)
        #expect(version == SpecVersion(major: 2, minor: 10))
        #expect(version.description == "2.10")
        #expect(version > SpecVersion(major: 2, minor: 9))
        #expect(result.bundle.catalogue?.specVersion?.location.line == 3)
    }

    @Test("a missing, unquoted or malformed specVersion is an error at its line and column, in compiler form")
    func malformedVersions() {
        let cases: [(line: String, message: String)] = [
            ("", "requirements.yaml:1:1: error: a requirements file is missing required key 'specVersion'"),
            ("specVersion: 3.0", #"requirements.yaml:3:14: error: write the spec version quoted, as specVersion: "3.0"; unquoted it is a number to YAML (3.10 would read as 3.1)"#),
            ("specVersion: 3", "requirements.yaml:3:14: error: expected specVersion to be a string, found an integer; quote it to make it text"),
            (#"specVersion: "v3.0""#, #"requirements.yaml:3:14: error: specVersion 'v3.0' is not MAJOR.MINOR (two whole numbers without leading zeros, for example "3.0"); docs/spec-format.md says which changes raise which part"#),
        ]
        for (line, message) in cases {
            let result = Self.load(line)
            #expect(result.bundle.specVersion == nil)
            let rendered = result.renderer.render(result.diagnostics)
            #expect(rendered.hasPrefix(message + "\n"), "\(line): \(rendered)")
        }
    }

    @Test("MAJOR.MINOR: two whole numbers without sign or leading zeros")
    func parsing() {
        for good in ["0.1", "1.0", "3.0", "2.10", "10.0"] { #expect(SpecVersion(good)?.description == good) }
        for bad in ["", "3", "3.", ".3", "03.0", "3.00", "3.0.1", "v3.0", "+3.0", "3.-1", " 3.0", "٣.0", "1234567890.0"] {
            #expect(SpecVersion(bad) == nil, "\(bad)")
        }
    }

    @Test("CHANGELOG.md's newest spec version is the spec version, and its versions go down")
    func changelogNamesTheSpecVersion() throws {
        let spec = try #require(SpecLinter.lint(paths: [PackagePaths.specs.path]).bundle.specVersion)
        let changelog = try String(contentsOf: PackagePaths.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // The "## Spec versions" part, up to the next part; its entries are "### MAJOR.MINOR (date)". The
        // tool's releases ("## Releases") are checked against the tool's version (ReleaseFilesTests).
        let lines = changelog.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "## Spec versions"), "CHANGELOG.md has a '## Spec versions' part")
        let part = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") && !$0.hasPrefix("# ") }
        let headings = part.filter { $0.hasPrefix("### ") }
        let versions = headings.compactMap { heading in
            heading.dropFirst(4).split(separator: " ").first.flatMap { SpecVersion(String($0)) }
        }
        #expect(!versions.isEmpty)
        #expect(versions.count == headings.count, "every '### ' heading of the spec versions starts with MAJOR.MINOR: \(headings)")
        #expect(versions.first == spec, "raise specVersion in Specs/requirements.yaml with a CHANGELOG.md entry")
        #expect(versions == versions.sorted(by: >) && Set(versions).count == versions.count)
    }
}
