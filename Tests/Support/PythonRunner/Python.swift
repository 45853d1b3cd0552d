import Foundation

/// Why a test that needs Python could not run: what is missing and how to install it.
public struct PythonSetupError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// Runs `python3` for tests that check files with real validators (python jsonschema).
public enum Python {
    /// Runs `python3` (found through `/usr/bin/env`) and collects its output through files, so neither pipe can fill.
    public static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("python-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdout = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
        let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        return (process.terminationStatus, stdout, stderr)
    }

    /// Fails with instructions when python3 or its jsonschema package is missing, rather than passing silently.
    /// `purpose` names the tests, for the message.
    public static func requireJSONSchema(for purpose: String) throws {
        let install = "install it with 'pip install jsonschema' or 'apt-get install python3-jsonschema'"
        let probe: (status: Int32, stdout: String, stderr: String)
        do {
            probe = try run(["-c", "import jsonschema"])
        } catch {
            throw PythonSetupError("cannot run python3 through /usr/bin/env (\(error)); install python3, then jsonschema: \(install)")
        }
        if probe.status == 127 {
            throw PythonSetupError("python3 is not on PATH; install python3, then the jsonschema package: \(install)")
        }
        if probe.status != 0 {
            throw PythonSetupError("""
                \(purpose) need the Python package 'jsonschema' in the python3 on PATH; \(install) \
                (python3 said: \(probe.stderr.split(separator: "\n").last.map(String.init) ?? "nothing"))
                """)
        }
    }
}

extension Python {
    /// Whether python3 with jsonschema is usable, probed once. Tests that need it are skipped with
    /// `jsonSchemaSkipReason` when it is not, unless `toolsRequired` (then they run and fail with
    /// `requireJSONSchema`'s instructions).
    public static let hasJSONSchema: Bool = (try? requireJSONSchema(for: "probe")) != nil

    /// SESSION_CONFORMANCE_REQUIRE_TOOLS=1, set by .ci/run after installing the optional tools.
    public static var toolsRequired: Bool {
        ProcessInfo.processInfo.environment["SESSION_CONFORMANCE_REQUIRE_TOOLS"] == "1"
    }

    public static let jsonSchemaSkipReason = """
        skipped: needs python3 with jsonschema (pip install jsonschema, or apt-get install python3-jsonschema); \
        SESSION_CONFORMANCE_REQUIRE_TOOLS=1 makes this a failure
        """
}
