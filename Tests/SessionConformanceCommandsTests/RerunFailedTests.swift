import ConformanceReports
import Foundation
import SessionConformanceCommands
import Testing

/// `--rerun-failed REPORT` reruns the report's failed cases with the command line's client and world, and
/// refuses one that differs from the report's; never silently with the built-in reference.
@Suite("--rerun-failed with the report's client")
struct RerunFailedTests {
    static let reference = "exec " + Paths.root.appendingPathComponent(".build/debug/session-conformance-reference-adapter").path
    /// An adapter that fails LOG-NO-TOKEN-VALUES in the full journey and passes launch-with-valid-session.
    static let leaky = reference + " --variant token-in-log"

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rerun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A JSON report of `leaky` over two cases, one of them failed.
    static func adapterReport(in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("leaky.json").path
        let first = run("run", "--spec-root", Paths.specs, "--adapter", leaky, "--timeout", "7", "--case", "launch-with-valid-session",
                        "--case", "full-journey-never-leaks-a-token", "--report", "json=\(file)")
        #expect(first.code == .conformanceFailure, "\(first.console.stdout)")
        return file
    }

    @Test("with the report's --adapter, its failed case reruns with the command line's timeout, not the report's")
    func rerunsWithTheSameAdapter() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.adapterReport(in: directory)
        let again = directory.appendingPathComponent("again.json").path
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", Self.leaky,
                                  "--report", "json=\(again)")
        #expect(code == .conformanceFailure, "\(console.stdout)")
        #expect(playedCases(console.stderr) == ["full-journey-never-leaks-a-token"])
        let report = try JSONReportWriter.read(path: again)
        #expect(report.adapter.description.hasSuffix("--variant token-in-log"))
        #expect(!report.run.command.contains("--timeout"), "\(report.run.command)")
        #expect(report.run.world == "json-v1")
    }

    @Test("without --adapter, a report of an adapter is refused (exit 2): its command is never run from the report")
    func refusesToRunTheReportsAdapter() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.adapterReport(in: directory)
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: \(file) was made with --adapter '\(WorkingDirectory.relativizing(Self.leaky))', "
                                         + "not the built-in reference (in-process); --rerun-failed takes only case IDs"), "\(console.stderr)")
        #expect(playedCases(console.stderr).isEmpty)
    }

    @Test("an --adapter other than the report's is refused with exit 2, unless --override-report")
    func refusesAnotherAdapter() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.adapterReport(in: directory)
        let refused = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", Self.reference)
        #expect(refused.code == .specOrUsageError)
        #expect(refused.console.stderr.hasPrefix("error: \(file) was made with --adapter '\(WorkingDirectory.relativizing(Self.leaky))', not --adapter '\(Self.reference)'\n"
                                                 + "hint: pass the report's client, or --override-report"),
                "\(refused.console.stderr)")
        #expect(playedCases(refused.console.stderr).isEmpty)
        // The built-in reference is another client too.
        let reference = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--connection", "in-process")
        #expect(reference.code == .specOrUsageError)
        let overridden = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", Self.reference, "--override-report")
        #expect(overridden.code == .success, "\(overridden.console.stdout)")
        #expect(playedCases(overridden.console.stderr) == ["full-journey-never-leaks-a-token"])
    }

    @Test("the built-in reference's report is not rerun with an --adapter, nor under another --world")
    func referenceReportRefusesAnAdapterAndAWorld() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("reference.json").path
        #expect(run("run", "--spec-root", Paths.specs, "--case", "launch-with-valid-session", "--report", "json=\(file)").code == .success)
        let adapter = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", Self.leaky)
        #expect(adapter.code == .specOrUsageError)
        #expect(adapter.console.stderr.hasPrefix("error: \(file) was made with the built-in reference (in-process), not --adapter"),
                "\(adapter.console.stderr)")
        let world = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--world", "rfc6749")
        #expect(world.code == .specOrUsageError)
        #expect(world.console.stderr.hasPrefix("error: \(file) was made under the world profile json-v1, not --world rfc6749\n"),
                "\(world.console.stderr)")
        let same = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--world", "json-v1")
        #expect(same.code == .success)
        #expect(same.console.stderr.hasPrefix("run: nothing to rerun"))
    }

    @Test("a report whose adapter could not be started reruns every selected case")
    func startupFailureRerunsEverything() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.json").path
        let broken = run("run", "--spec-root", Paths.specs, "--adapter", "exit 4", "--timeout", "5", "--report", "json=\(file)")
        #expect(broken.code == .adapterNotStarted)
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", Self.reference,
                                  "--override-report", "-k", "launch-with-valid")
        #expect(code == .success, "\(console.stderr)")
        #expect(playedCases(console.stderr) == ["launch-with-valid-session"])
    }

    @Test("failed cases the spec no longer has are named in a warning; when none is left, that is an error (exit 2)")
    func unknownCaseIDs() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("leaky.json").path
        let first = run("run", "--spec-root", Paths.specs, "--adapter", Self.leaky, "--case", "rotation-never-resends-an-old-refresh-token",
                        "--case", "full-journey-never-leaks-a-token", "--report", "json=\(file)")
        #expect(first.code == .conformanceFailure, "\(first.console.stdout)")
        // The spec renamed one failed case since the report was made.
        let original = try String(contentsOfFile: file, encoding: .utf8)
        let renamed = directory.appendingPathComponent("renamed.json").path
        try original.replacingOccurrences(of: "rotation-never-resends-an-old-refresh-token", with: "rotation-case-renamed-since")
            .write(toFile: renamed, atomically: true, encoding: .utf8)
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", renamed, "--adapter", Self.leaky)
        #expect(code == .conformanceFailure, "\(console.stderr)")
        #expect(console.stderr.contains("run: warning: 1 case that failed, errored or was inconclusive in \(renamed) is not in the spec, "
                                        + "so not rerun: 'rotation-case-renamed-since'\n"), "\(console.stderr)")
        #expect(playedCases(console.stderr) == ["full-journey-never-leaks-a-token"])
        // Both renamed: nothing of the report is left to rerun, which is not a pass.
        let gone = directory.appendingPathComponent("gone.json").path
        try original.replacingOccurrences(of: "rotation-never-resends-an-old-refresh-token", with: "rotation-case-renamed-since")
            .replacingOccurrences(of: "full-journey-never-leaks-a-token", with: "journey-case-renamed-since")
            .write(toFile: gone, atomically: true, encoding: .utf8)
        let none = run("run", "--spec-root", Paths.specs, "--rerun-failed", gone, "--adapter", Self.leaky)
        #expect(none.code == .specOrUsageError)
        #expect(none.console.stderr.contains("error: the 2 cases that failed, errored or were inconclusive in \(gone) are not in the spec: "
                                              + "'rotation-case-renamed-since', 'journey-case-renamed-since'\n"
                                              + "hint: the report was made with another spec"), "\(none.console.stderr)")
        #expect(playedCases(none.console.stderr).isEmpty)
    }

    @Test("the words of a reproduce command split back as /bin/sh reads them")
    func reproduceCommandWords() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // An adapter with quotes and spaces survives the report's quoting.
        let adapter = #"echo 'it'"'"'s "gone"' >&2; exit 4"#
        let file = directory.appendingPathComponent("quoted.json").path
        _ = run("run", "--spec-root", Paths.specs, "--adapter", adapter, "--timeout", "5", "--report", "json=\(file)")
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--adapter", adapter, "-k", "launch-with-valid")
        #expect(code == .adapterNotStarted, "\(console.stderr)")
        #expect(console.stdout.contains(#"it's "gone""#))
    }
}
