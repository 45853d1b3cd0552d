import Foundation
import JSONCore
import SpecYAML

/// Runs the delivery scripts (scripts/, scripts/action/) as a CI runner runs a step: bash with exactly the
/// environment given, nothing inherited.
enum ScriptShell {
    /// The bash under test: `SESSION_CONFORMANCE_TEST_BASH` (for example a bash 3.2 build, the bash of macOS
    /// runners), else /bin/bash.
    static let bash = ProcessInfo.processInfo.environment["SESSION_CONFORMANCE_TEST_BASH"] ?? "/bin/bash"

    static func run(_ arguments: [String], environment: [String: String], in directory: URL) throws -> (status: Int32, output: String) {
        let output = directory.appendingPathComponent(".output-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close(); try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bash)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    /// `key=value` lines of a GITHUB_OUTPUT file; a missing file is no output.
    static func outputs(_ file: URL) -> [String: String] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return values
    }

    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// action.yml, read with the project's YAML loader.
struct ActionMetadata {
    var inputs: [String: JSONValue]
    var outputs: [String: JSONValue]
    var steps: [JSONValue]

    static func load() throws -> ActionMetadata {
        let text = try String(contentsOf: Paths.root.appendingPathComponent("action.yml"), encoding: .utf8)
        let loaded = YAMLLoader.load(text, file: "action.yml")
        guard let root = loaded.root?.jsonValue, let inputs = root["inputs"]?.object, let outputs = root["outputs"]?.object,
              let steps = root["runs"]?["steps"]?.array else {
            throw MetadataError(description: "action.yml has no inputs, outputs or runs.steps: \(loaded.diagnostics)")
        }
        return ActionMetadata(inputs: inputs, outputs: outputs, steps: steps)
    }

    /// The one definition of the repository path the releases are published under: the default of the
    /// `repository` input.
    var canonicalRepository: String? { inputs["repository"]?["default"]?.string }

    struct MetadataError: Error, CustomStringConvertible { var description: String }
}
