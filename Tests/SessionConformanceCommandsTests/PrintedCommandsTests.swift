import Foundation
import Testing

/// What `explore` and `run` print for the user to copy runs as printed, from the folder it was printed in.
@Suite("Printed commands run as printed")
struct PrintedCommandsTests {
    static let binary = Paths.root.appendingPathComponent(".build/debug/session-conformance")
    static let referenceAdapter = Paths.root.appendingPathComponent(".build/debug/session-conformance-reference-adapter")

    /// Runs `command` with /bin/sh in `folder`; returns the exit status and what it printed on stdout, then stderr.
    static func shell(_ command: String, in folder: URL) throws -> (status: Int32, output: String) {
        let run = try LaunchedProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], in: folder)
        return (run.status, run.stdout + run.stderr)
    }

    @Test("an adapter at the top of the working folder, given by its absolute path, is replayed as ./adapter, which runs")
    func replayOfAnAdapterInTheWorkingFolder() throws {
        for executable in [Self.binary, Self.referenceAdapter] {
            try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build \(executable.lastPathComponent) first")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("printed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let adapter = folder.appendingPathComponent("adapter")
        try "#!/bin/sh\nexec '\(Self.referenceAdapter.path)' --reset --variant refresh-per-request\n".write(to: adapter, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: adapter.path)
        // The folder as the process sees it (/tmp may be a link), so the adapter's path lies inside the working folder.
        let inside = try Self.shell("pwd -P", in: folder).output.trimmingCharacters(in: .whitespacesAndNewlines) + "/adapter"
        let explored = try Self.shell("'\(Self.binary.path)' explore --spec-root '\(Paths.specs)' --adapter '\(inside)' --runs 30 --no-shrink", in: folder)
        #expect(explored.status == 1, "\(explored.output)")
        let replay = try #require(explored.output.split(separator: "\n").first { $0.contains("replay:") }, "\(explored.output)")
        let command = String(replay.drop { $0 != ":" }.dropFirst()).trimmingCharacters(in: .whitespaces)
        #expect(command.contains("--adapter './adapter'"), "\(command)")
        let replayed = try Self.shell(command, in: folder)
        #expect(replayed.status == 1, "\(replayed.output)")
        #expect(replayed.output.contains("REFRESH-SINGLE-FLIGHT"), "\(replayed.output)")
    }
}
