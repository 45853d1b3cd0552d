import Foundation

/// A JSON report an attacker handed back to the CLI: a real run of the built-in reference over one case,
/// then edited as a file: the case marked failed, and the run's recorded command replaced.
enum ForgedReport {
    static let failedCase = "launch-with-valid-session"

    /// Writes the forged report in `directory` and returns its path.
    static func write(command: String, world: String? = nil, in directory: URL, name: String = "forged.json") throws -> String {
        let honest = directory.appendingPathComponent("honest-\(name)").path
        let made = run("run", "--spec-root", Paths.specs, "--case", failedCase, "--report", "json=\(honest)")
        guard made.code == .success else { throw Failure(text: made.console.stderr) }
        let data = try Data(contentsOf: URL(fileURLWithPath: honest))
        guard var report = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var runInfo = report["run"] as? [String: Any],
              var cases = report["cases"] as? [[String: Any]] else { throw Failure(text: "not a report") }
        runInfo["command"] = command
        if let world { runInfo["world"] = world }
        report["run"] = runInfo
        cases[0]["status"] = "fail"
        report["cases"] = cases
        let path = directory.appendingPathComponent(name).path
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Failure: Error { let text: String }
}
