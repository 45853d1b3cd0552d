import Foundation
import SessionConformanceCommands
import Testing

/// Exit codes per situation: CI tells a broken job (2, 3) from a broken client (1).
@Suite("Exit codes per situation")
struct ExitCodeTests {
    static let referenceAdapter = "exec " + Paths.root.appendingPathComponent(".build/debug/session-conformance-reference-adapter").path

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `run --adapter COMMAND` over one case.
    static func runAdapter(_ command: String, case id: String = "launch-with-valid-session") -> (code: ExitCode, console: BufferConsole) {
        let console = BufferConsole()
        let arguments = ["run", "--spec-root", Paths.specs, "--adapter", command, "--timeout", "5", "--case", id]
        return (SessionConformance.main(arguments: arguments, console: console), console)
    }

    @Test("a conformant client exits 0")
    func conformant() {
        let (code, console) = Self.runAdapter(Self.referenceAdapter)
        #expect(code == .success, "\(console.stdout)")
        #expect(code.rawValue == 0)
    }

    @Test("a client that fails a MUST requirement exits 1")
    func failingClient() {
        let (code, console) = Self.runAdapter(Self.referenceAdapter + " --variant token-in-log", case: "full-journey-never-leaks-a-token")
        #expect(code == .conformanceFailure, "\(console.stdout)")
        #expect(code.rawValue == 1)
        #expect(console.stdout.contains("FAIL "))
    }

    @Test("a client that starts, then breaks the protocol in a case, gets that case's error verdict and exits 1")
    func laterProtocolErrorIsTheClients() {
        let script = #"printf '{"type":"hello","protocol":1,"implementation":{"name":"junk","version":"0","language":"sh","platform":"linux"},"capabilities":[]}\n'; read line; echo 'this is not json'; cat >/dev/null"#
        let (code, console) = Self.runAdapter(script)
        #expect(code == .conformanceFailure, "\(console.stdout)")
        #expect(console.stdout.contains("ERROR case launch-with-valid-session"))
    }

    @Test("an adapter path that does not exist exits 3")
    func missingAdapterPath() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, console) = Self.runAdapter(directory.appendingPathComponent("no-such-adapter").path)
        #expect(code == .adapterNotStarted, "\(console.stdout)")
        #expect(code.rawValue == 3)
        #expect(console.stdout.contains("error: the adapter could not be started"))
    }

    @Test("an adapter file that is not executable exits 3")
    func notExecutable() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("adapter.sh")
        try "#!/bin/sh\nexec \(Self.referenceAdapter)\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let (code, console) = Self.runAdapter(file.path)
        #expect(code == .adapterNotStarted, "\(console.stdout)")
        #expect(console.stdout.contains("status 126"))
    }

    @Test("an adapter that exits at start exits 3")
    func exitsAtStart() {
        let (code, console) = Self.runAdapter("echo 'missing configuration' >&2; exit 4")
        #expect(code == .adapterNotStarted, "\(console.stdout)")
        #expect(console.stdout.contains("missing configuration"))
    }

    @Test("an adapter whose first line is not a hello exits 3")
    func garbageFirstLine() {
        let (code, console) = Self.runAdapter("echo 'Listening on port 8080'; cat >/dev/null")
        #expect(code == .adapterNotStarted, "\(console.stdout)")
    }

    @Test("a usage error exits 2")
    func usageError() {
        let (code, _) = run("run", "--spec-root", Paths.specs, "--jobs", "0")
        #expect(code == .specOrUsageError)
        #expect(code.rawValue == 2)
    }

    @Test("merging the report of a run whose adapter could not be started exits 3, as that run did")
    func mergeKeepsTheStartupCode() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shard-1.json").path
        let console = BufferConsole()
        let shard = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--adapter", "exit 4", "--timeout", "5",
                                                        "--shard", "1/1", "--report", "json=\(file)"], console: console)
        #expect(shard == .adapterNotStarted, "\(console.stdout)")
        let (code, _) = run("merge", file, "--report", "json=\(directory.appendingPathComponent("merged.json").path)")
        #expect(code == .adapterNotStarted)
    }

    @Test("explore whose adapter cannot start writes its report, marked incomplete with the startup failure, and exits 3")
    func exploreWritesAReportWhenTheAdapterCannotStart() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("explore.json")
        let (code, _) = run("explore", "--spec-root", Paths.specs, "--adapter", "exit 4", "--timeout", "5", "--runs", "5",
                            "--report", "json=\(file.path)")
        #expect(code == .adapterNotStarted)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect((report["run"] as? [String: Any])?["completed"] as? Bool == false)
        #expect((report["cases"] as? [Any])?.isEmpty == true)
    }

    @Test("the summary says what the reasons after the first count")
    func moreReasonsAreNamed() {
        let (_, console) = run("run", "--spec-root", Paths.specs, "--adapter", "exit 4", "--timeout", "5")
        let summary = console.stdout.split(separator: "\n").last { $0.hasPrefix("requirements: ") } ?? ""
        #expect(summary.contains(#/\(and (\d+) more: \1 MUST requirements untested\)$/#), "\(summary)")
    }

    @Test("--help documents exit code 3")
    func helpDocumentsThree() {
        let (_, console) = run("run", "--help")
        #expect(console.stdout.contains("3  the adapter could not be started or spoke no protocol"))
    }
}

@Suite("Exit codes of explore")
struct ExploreExitCodeTests {
    @Test("explore of an adapter that cannot start exits 3")
    func exploreAdapterNotStarted() {
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--adapter", "exit 4", "--timeout", "5", "--runs", "1")
        #expect(code == .adapterNotStarted, "\(console.stderr)")
        #expect(console.stderr.contains("explore: the client could not be started"))
    }
}
