import Foundation
import PythonRunner
import SpecModel
import SpecYAML
import Testing

// The JSON Schemas in Specs/schema/ must agree with the loader. Every real spec validates against the schema of its
// `kind`, and every malformed fixture is classified by its first line:
//
// - `# schema: reject`: JSON Schema alone finds the error (the file is INVALID against its schema).
// - `# schema: accept`: the error is beyond JSON Schema (a dangling reference, a duplicate ID, a quote that is not
//   verbatim), so the file is VALID against its schema and only lint catches it.
// - `# schema: unparsable`: the YAML layer rejects the file; there is no faithful JSON to validate, so it is skipped.
//
// The YAML is read by the suite's own loader and written out as JSON, then checked by a real validator: Python's
// `jsonschema` (Draft202012Validator), driven by Specs/schema/validate_schema.py (kept beside the schemas, not here,
// because SwiftPM warns about a file of unknown type inside a test target).

/// The JSON Schemas in Specs/schema/ accept what the loader accepts and reject what it rejects.
@Suite("Schema agreement")
struct SchemaAgreementTests {
    @Test("real specs validate against their schemas", .needsJSONSchema)
    func realSpecsValidate() throws {
        let run = try SchemaRun()
        defer { run.cleanUp() }
        let specs = Paths.root.appendingPathComponent("Specs")
        var files = ["requirements.yaml", "state-machine.yaml"].map { specs.appendingPathComponent($0) }
        for required in files {
            try #require(FileManager.default.fileExists(atPath: required.path), "missing real spec \(required.path)")
        }
        files += Paths.yamlFiles(in: specs.appendingPathComponent("cases"))
        let worlds = Paths.yamlFiles(in: specs.appendingPathComponent("worlds"))
        try #require(worlds.count >= 2, "Specs/worlds holds the shipped world profiles json-v1 and rfc6749")
        files += worlds

        var instances: [Instance] = []
        for file in files {
            let converted = Instance.convert(file)
            guard let instance = converted.instance else {
                Issue.record(Comment(rawValue: converted.problem ?? "\(file.path) could not be converted"))
                continue
            }
            if let problem = converted.problem { Issue.record(Comment(rawValue: problem)) }
            instances.append(instance)
        }
        let verdicts = try run.validate(instances)
        for instance in instances {
            for (kind, verdict) in verdicts[instance.source.path] ?? [:] where !verdict.isValid {
                Issue.record("\(Paths.relative(instance.source)) is not valid against \(kind.schemaFile): \(verdict.message)")
            }
        }
        let validated = instances.filter { instance in
            verdicts[instance.source.path]?.values.allSatisfy(\.isValid) == true
        }
        print("schema agreement: validated \(validated.count) of \(files.count) real spec files: "
              + validated.map { Paths.relative($0.source) }.joined(separator: ", "))
    }

    @Test("malformed fixtures are rejected or accepted by their schema as their first line says", .needsJSONSchema)
    func malformedFixturesAgree() throws {
        let run = try SchemaRun()
        defer { run.cleanUp() }
        let fixtures = Paths.yamlFiles(in: Paths.malformedFixtures)

        var instances: [(Instance, SchemaMarker)] = []
        var skipped = 0
        for file in fixtures {
            let name = Paths.relative(file)
            guard let marker = SchemaMarker(firstLineOf: file) else {
                Issue.record("""
                    \(name) has no valid schema marker: its first line must be exactly '# schema: reject', \
                    '# schema: accept' or '# schema: unparsable'
                    """)
                continue
            }
            if marker == .unparsable {
                skipped += 1
                continue
            }
            let converted = Instance.convert(file)
            guard let instance = converted.instance else {
                Issue.record(Comment(rawValue: "\(converted.problem ?? name) (mark YAML syntax errors '# schema: unparsable')"))
                continue
            }
            instances.append((instance, marker))
        }
        let message = "\(Paths.relative(Paths.malformedFixtures)) holds no fixture marked '# schema: reject' or "
            + "'# schema: accept'; this test would check nothing"
        try #require(!instances.isEmpty, Comment(rawValue: message))

        let verdicts = try run.validate(instances.map(\.0))
        for (instance, marker) in instances {
            let name = Paths.relative(instance.source)
            let results = verdicts[instance.source.path] ?? [:]
            switch marker {
            case .reject:
                for (kind, verdict) in results where verdict.isValid {
                    Issue.record("""
                        \(name) is marked '# schema: reject' but is VALID against \(kind.schemaFile): the schema \
                        misses what the loader rejects, or the fixture belongs under '# schema: accept'
                        """)
                }
            case .accept:
                guard instance.kind != nil else {
                    Issue.record("""
                        \(name) is marked '# schema: accept' but names no known 'kind', so every schema rejects it; \
                        mark it '# schema: reject'
                        """)
                    continue
                }
                for (kind, verdict) in results where !verdict.isValid {
                    Issue.record("""
                        \(name) is marked '# schema: accept' but is INVALID against \(kind.schemaFile): \
                        \(verdict.message)
                        """)
                }
            case .unparsable:
                break
            }
        }
        let rejected = instances.filter { $0.1 == .reject }.count
        print("schema agreement: \(rejected) fixtures checked as rejected, \(instances.count - rejected) as accepted, "
              + "\(skipped) unparsable skipped")
    }

    @Test("fixtures the schemas reject are rejected by the spec decoder as well")
    func schemaRejectsAreDecoderRejects() throws {
        for file in Paths.yamlFiles(in: Paths.malformedFixtures) where SchemaMarker(firstLineOf: file) == .reject {
            let bytes = try [UInt8](Data(contentsOf: file))
            let name = Paths.relative(file)
            let parsed = YAMLLoader.load(bytes, file: name)
            if parsed.diagnostics.contains(where: { $0.severity == .error }) { continue }
            let decoding = SpecFileDecoder.decode(parsed.root, file: name)
            #expect(decoding.diagnostics.contains { $0.severity == .error },
                    "\(name) is marked '# schema: reject' but the spec decoder reports no error for it")
        }
    }
}

// MARK: - Support

/// The kinds of spec file and the schema that describes each.
private enum SchemaKind: String, CaseIterable, Hashable {
    case requirements
    case stateMachine = "state-machine"
    case cases
    case world

    var schemaFile: String { "Specs/schema/\(rawValue).schema.json" }
    var schema: URL { Paths.root.appendingPathComponent(schemaFile) }
}

/// The first line of a malformed fixture says what JSON Schema must make of it.
private enum SchemaMarker: String {
    case reject
    case accept
    case unparsable

    /// Nil when the first line is not `# schema: reject`, `# schema: accept` or `# schema: unparsable`.
    init?(firstLineOf file: URL) {
        guard let data = try? Data(contentsOf: file) else { return nil }
        let firstLine = String(decoding: data, as: UTF8.self)
            .split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let prefix = "# schema:"
        let line = firstLine.trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix(prefix) else { return nil }
        self.init(rawValue: line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces))
    }
}

private enum Paths {
    static let root = PackagePaths.root
    /// Tests/SpecModelTests/Fixtures/malformed, or the folder named by `SCHEMA_AGREEMENT_FIXTURES` (to try out
    /// fixtures kept elsewhere).
    static let malformedFixtures = ProcessInfo.processInfo.environment["SCHEMA_AGREEMENT_FIXTURES"]
        .map { URL(fileURLWithPath: $0) } ?? PackagePaths.malformed
    static let validator = root.appendingPathComponent("Specs/schema/validate_schema.py")

    /// The `.yaml` and `.yml` files directly in a folder, sorted; none if the folder does not exist.
    static func yamlFiles(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
            .map { folder.appendingPathComponent($0) }
    }

    static func relative(_ url: URL) -> String {
        let base = root.path.hasSuffix("/") ? root.path : root.path + "/"
        return url.path.hasPrefix(base) ? String(url.path.dropFirst(base.count)) : url.path
    }
}

/// One YAML file as JSON, with the schemas it must be checked against.
private struct Instance {
    let source: URL
    let json: String
    /// The file's `kind`, or nil when it names none of the known kinds.
    let kind: SchemaKind?

    /// Its own kind's schema; a file without a known kind is checked against every schema (each must reject it).
    var kinds: [SchemaKind] { kind.map { [$0] } ?? SchemaKind.allCases }

    /// Reads a file with the suite's loader. `problem` explains a file that cannot be converted (no instance)
    /// or that converted despite loader errors (the JSON then holds only what the loader kept).
    static func convert(_ file: URL) -> (instance: Instance?, problem: String?) {
        let name = Paths.relative(file)
        guard let data = try? Data(contentsOf: file) else { return (nil, "cannot read \(name)") }
        let parsed = YAMLLoader.load([UInt8](data), file: name)
        let errors = parsed.diagnostics.filter { $0.severity == .error }
        let rendered = DiagnosticRenderer(sources: [parsed.source]).render(errors)
        if parsed.root == nil, !errors.isEmpty {
            return (nil, "\(name) does not parse as YAML:\n\(rendered)")
        }
        // An empty file is YAML null: no schema accepts it.
        let json = parsed.root?.jsonText() ?? "null"
        let kindText = parsed.root?.mapping?.first { $0.key == "kind" }?.value.scalar?.text
        let instance = Instance(source: file, json: json, kind: kindText.flatMap(SchemaKind.init(rawValue:)))
        return (instance, errors.isEmpty ? nil : "\(name) has YAML errors:\n\(rendered)")
    }
}


/// One validator's answer for one instance against one schema.
private struct Verdict {
    let isValid: Bool
    let message: String
}

/// A temporary folder for JSON instances, and the Python validator that checks them.
private struct SchemaRun {
    let folder: URL

    init() throws {
        try Python.requireJSONSchema(for: "the schema agreement tests")
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("schema-agreement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Validates every instance against the schemas of its kind: verdicts by source path, then by kind.
    func validate(_ instances: [Instance]) throws -> [String: [SchemaKind: Verdict]] {
        var verdicts: [String: [SchemaKind: Verdict]] = [:]
        for kind in SchemaKind.allCases {
            let batch = instances.enumerated().filter { $0.element.kinds.contains(kind) }
            guard !batch.isEmpty else { continue }
            var sources: [String: URL] = [:]
            for (index, instance) in batch {
                let json = folder.appendingPathComponent("\(kind.rawValue)-\(index).json")
                try Data(instance.json.utf8).write(to: json)
                sources[json.path] = instance.source
            }
            let output = try Python.run([Paths.validator.path, kind.schema.path] + sources.keys.sorted())
            try #require(output.status == 0, """
                validate_schema.py failed on \(kind.schemaFile) (exit \(output.status)):
                \(output.stderr)
                """)
            for line in output.stdout.split(separator: "\n").map(String.init) {
                let verdict: (path: String, Verdict)
                if line.hasPrefix("OK ") {
                    verdict = (String(line.dropFirst(3)), Verdict(isValid: true, message: ""))
                } else if line.hasPrefix("INVALID "), let colon = line.range(of: ": ") {
                    let path = String(line[line.index(line.startIndex, offsetBy: 8)..<colon.lowerBound])
                    verdict = (path, Verdict(isValid: false, message: String(line[colon.upperBound...])))
                } else {
                    Issue.record("unexpected line from validate_schema.py: \(line)")
                    continue
                }
                guard let source = sources.removeValue(forKey: verdict.path) else {
                    Issue.record("validate_schema.py reported an unknown instance: \(line)")
                    continue
                }
                verdicts[source.path, default: [:]][kind] = verdict.1
            }
            for source in sources.values {
                Issue.record("validate_schema.py said nothing about \(Paths.relative(source)) against \(kind.schemaFile)")
            }
        }
        return verdicts
    }


}
