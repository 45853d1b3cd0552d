import Foundation
import SessionConformanceCommands
import POSIXSync
import Testing

/// A FIFO where the suite expects a file it reads is refused at once: nothing waits for a writer that never
/// comes (`BoundedFile` opens without blocking and reads regular files only).
@Suite("FIFOs given as input are refused at once")
struct FIFOInputTests {
    /// A folder with a FIFO `name` in it, removed by the caller.
    static func fifo(named name: String = "input.fifo") throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try #require(mkfifo(path, 0o600) == 0)
        return (folder, path)
    }

    /// Runs the command line; nil when it has not returned within 20 seconds. A command stuck on the FIFO is
    /// then freed by a writer that opens and closes it.
    static func runWithDeadline(_ arguments: [String], fifo: String) -> (code: ExitCode, console: BufferConsole)? {
        let result = Locked<(code: ExitCode, console: BufferConsole)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = run(arguments)
            result.withLock { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 20) == .success else {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            return nil
        }
        return result.withLock { $0 }
    }

    static func expectRefused(_ arguments: [String], fifo: String, saying words: String = "FIFO (named pipe)") {
        guard let (code, console) = runWithDeadline(arguments, fifo: fifo) else {
            Issue.record("\(arguments.joined(separator: " ")) waited on the FIFO")
            return
        }
        #expect(code == .specOrUsageError, "\(arguments.joined(separator: " ")): \(console.stderr)")
        #expect((console.stderr + console.stdout).contains(words), "\(arguments.joined(separator: " ")): \(console.stderr)")
    }

    @Test("--world, --expected-failures and --rerun-failed naming a FIFO: exit 2 at once")
    func runOptions() throws {
        let (folder, path) = try Self.fifo()
        defer { try? FileManager.default.removeItem(at: folder) }
        for option in ["--world", "--expected-failures", "--rerun-failed"] {
            Self.expectRefused(["run", "--spec-root", Paths.specs, "--case", "launch-with-valid-session", option, path], fifo: path)
        }
    }

    @Test("diff and merge given a FIFO: exit 2 at once")
    func diffAndMerge() throws {
        let (folder, path) = try Self.fifo()
        defer { try? FileManager.default.removeItem(at: folder) }
        Self.expectRefused(["diff", path, path], fifo: path)
        Self.expectRefused(["merge", path], fifo: path)
    }

    @Test("lint and run on a spec folder holding a FIFO: the FIFO is an error, never waited on")
    func specFolder() throws {
        let (folder, _) = try Self.fifo()
        defer { try? FileManager.default.removeItem(at: folder) }
        let specs = folder.appendingPathComponent("Specs")
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: specs.path)
        let path = specs.appendingPathComponent("cases/planted.yaml").path
        try #require(mkfifo(path, 0o600) == 0)
        Self.expectRefused(["lint", specs.path], fifo: path)
        Self.expectRefused(["run", "--spec-root", specs.path, "--case", "launch-with-valid-session"], fifo: path)
    }
}
