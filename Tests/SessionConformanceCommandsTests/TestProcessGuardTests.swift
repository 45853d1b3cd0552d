import AdapterProcess
import Foundation
import SessionConformanceCommands
import TestProcessGuard
import Testing

// Linux only: the guard (Tests/Support/TestProcessGuard) and these probes of it read /proc.
#if os(Linux)
/// A killed test run leaves no process behind (Tests/Support/TestProcessGuard): the test binary is started
/// again as a child test process that runs only `waitsToBeKilled`, which starts processes as the tests do and
/// waits; then that child, or its parent, is killed, and what it started must be gone.
@Suite("A killed test run leaves no process behind")
struct TestProcessGuardTests {
    static let probeVariable = "SESSION_CONFORMANCE_GUARD_PROBE"

    /// A process, by its id and its start time, so that an id the system gave to another process since is
    /// never taken for it (nor killed).
    struct Started: CustomStringConvertible {
        let id: Int32
        let startTime: Substring?

        init(_ id: Int32) {
            self.id = id
            startTime = Started.stat(id).map { $0.startTime }
        }

        /// The state and start time fields of /proc/ID/stat, after the command name in parentheses.
        static func stat(_ id: Int32) -> (state: Character?, startTime: Substring)? {
            guard let text = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
                  let nameEnd = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: nameEnd)...].split(separator: " ")
            return fields.count > 19 ? (fields[0].first, fields[19]) : nil
        }

        /// Whether it runs (a zombie, killed and waiting to be reaped, does not).
        var isRunning: Bool {
            guard let now = Started.stat(id), now.startTime == startTime else { return false }
            return now.state != "Z" && now.state != "X"
        }

        var description: String { "\(id)" }
    }

    /// What a test process started, and its own id, as the probe wrote them; the folder they were written in.
    struct Tree {
        let testProcess: Started
        let started: [Started]
        let folder: URL

        /// The test process's exit status as its shell saw it, once the shell has written it.
        var exitStatus: Int32? {
            (try? String(contentsOf: folder.appendingPathComponent("status"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// Starts the test binary running only the probe, through `/bin/sh` (which stays its parent, as `swift test`
    /// does), and waits until the probe wrote what it started. The shell is started as the suite starts adapters,
    /// with every signal at its default action, so the probe's guard handles each of them whatever this
    /// process ignores.
    static func startProbe() throws -> (shell: AdapterProcess, tree: Tree) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("guard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pidFile = folder.appendingPathComponent("pids")
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        // The shell stays the test process's parent (it does not exec the binary), and writes its exit status.
        let shell = try AdapterProcess(
            commandLine: "'\(testBinary)' --testing-library swift-testing --filter waitsToBeKilled > /dev/null 2>&1; "
                + "echo $? > '\(folder.path)/status'",
            environment: ProcessInfo.processInfo.environment.merging([probeVariable: pidFile.path]) { $1 })
        var pids: [Int32] = []
        for _ in 0..<6000 where pids.count < 4 {
            usleep(10_000)
            let text = (try? String(contentsOf: pidFile, encoding: .utf8)) ?? ""
            pids = text.hasSuffix("end\n") ? text.split(separator: "\n").compactMap { Int32($0) } : []
        }
        if pids.count < 4 {
            _ = shell.kill()
            try? FileManager.default.removeItem(at: folder)
        }
        try #require(pids.count == 4, "the probe test process never started its processes (\(pids))")
        let tree = Tree(testProcess: Started(pids[0]), started: pids.dropFirst().map(Started.init), folder: folder)
        return (shell, tree)
    }

    /// Waits (at most a minute) until none of `processes` runs; returns the ones still running.
    static func survivors(_ processes: [Started]) -> [Started] {
        for _ in 0..<6000 where processes.contains(where: \.isRunning) { usleep(10_000) }
        return processes.filter(\.isRunning)
    }

    @Test("a test process stopped by a signal kills the adapter and the other processes it started, then dies by that signal",
          .enabled(if: test_process_guard_active() != 0, "the test process's guard works on Linux only"),
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func signalledTestProcessKillsWhatItStarted(_ signal: Int32) throws {
        let (shell, tree) = try Self.startProbe()
        defer { Self.cleanUp(shell, tree) }
        kill(tree.testProcess.id, signal)
        // The probe never ends by itself, nor do its processes: whatever runs after a minute was left behind.
        #expect(Self.survivors([tree.testProcess]).isEmpty, "the test process did not stop")
        let left = Self.survivors(tree.started)
        #expect(left.isEmpty, "processes \(left) of the \(tree.started.count) the test process started were left behind")
        for _ in 0..<6000 where tree.exitStatus == nil { usleep(10_000) }
        #expect(tree.exitStatus == 128 + signal, "the test process did not die by the signal")
    }

    /// Kills whatever a failed check left running, and reaps the shell.
    static func cleanUp(_ shell: AdapterProcess, _ tree: Tree) {
        for process in [tree.testProcess] + tree.started where process.isRunning { kill(process.id, SIGKILL) }
        _ = shell.kill()
        try? FileManager.default.removeItem(at: tree.folder)
    }

    @Test("when `swift test` goes away, even by SIGKILL, the test process kills what it started and exits",
          .enabled(if: test_process_guard_active() != 0, "the test process's guard works on Linux only"))
    func orphanedTestProcessKillsWhatItStartedAndExits() throws {
        let (shell, tree) = try Self.startProbe()
        defer { Self.cleanUp(shell, tree) }
        kill(shell.processID, SIGKILL)
        let left = Self.survivors([tree.testProcess] + tree.started)
        #expect(left.isEmpty, "processes \(left) were left behind (the test process was \(tree.testProcess))")
    }

    /// The probe: in the child test process only. Runs `run` in-process (which handles SIGINT and SIGTERM while it
    /// runs, and must leave the guard's handlers in place after), starts an adapter in a process group of its own,
    /// a plain child and a shell with a child of its own, writes their ids, and waits to be killed: it never ends by itself.
    @Test("(probe for the tests above; runs only as their child test process)",
          .enabled(if: ProcessInfo.processInfo.environment[probeVariable] != nil, "runs only as the child of the guard tests"))
    func waitsToBeKilled() throws {
        let pidFile = try #require(ProcessInfo.processInfo.environment[Self.probeVariable])
        let console = BufferConsole()
        _ = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--case", "launch-with-valid-session"],
                                    console: console)
        let adapter = try AdapterProcess(commandLine: "exec sleep 3600")
        let plain = Process()
        plain.executableURL = URL(fileURLWithPath: "/bin/sh")
        plain.arguments = ["-c", "sleep 3600; :"]
        try plain.run()
        // The shell's own child, a grandchild of the test process.
        var grandchild: Int32 = 0
        for _ in 0..<3000 where grandchild == 0 {
            usleep(10_000)
            let children = (try? String(contentsOfFile: "/proc/\(plain.processIdentifier)/task/\(plain.processIdentifier)/children",
                                        encoding: .utf8)) ?? ""
            grandchild = children.split(separator: " ").compactMap { Int32($0) }.first ?? 0
        }
        let lines = [getpid(), adapter.processID, plain.processIdentifier, grandchild].map(String.init)
        try (lines.joined(separator: "\n") + "\nend\n").write(toFile: pidFile, atomically: true, encoding: .utf8)
        while true { sleep(60) }
    }
}
#endif
