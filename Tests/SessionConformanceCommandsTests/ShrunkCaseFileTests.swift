import Foundation
import SessionConformanceCommands
import Testing

/// Where `explore` writes its shrunk cases: a folder the suite owns, whatever links are planted in it.
@Suite("explore's shrunk case files")
struct ShrunkCaseFileTests {
    static func explore(into folder: URL) -> (code: ExitCode, console: BufferConsole) {
        run("explore", "--spec-root", Paths.specs, "--variant", "token-in-log", "--runs", "30", "--shrink-dir", folder.path)
    }

    @Test("a symbolic link at a shrunk case's path is replaced by the case; the file it names is left as it was")
    func linkIsReplacedNotWrittenThrough() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shrunk-link-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The case's file name, from a first exploration (the same seed shrinks to the same case).
        let first = root.appendingPathComponent("first")
        #expect(Self.explore(into: first).code == .conformanceFailure)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: first.appendingPathComponent("cases").path).first)
        let victim = root.appendingPathComponent("victim.txt")
        try "the team's file\n".write(to: victim, atomically: true, encoding: .utf8)
        let planted = root.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted.appendingPathComponent("cases"), withIntermediateDirectories: true)
        let link = planted.appendingPathComponent("cases/\(name)")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim.path)
        #expect(Self.explore(into: planted).code == .conformanceFailure)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "the team's file\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: link.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOf: link, encoding: .utf8).contains("id: \(name.dropLast(".yaml".count))"))
    }

    @Test("a --shrink-dir that is not a folder is a usage error (exit 2) before anything runs")
    func shrinkDirNotAFolder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shrink-file-\(UUID().uuidString)")
        try "not a folder\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (code, console) = Self.explore(into: file)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: --shrink-dir \(file.path) is not a folder\n"), "\(console.stderr)")
        #expect(!console.stderr.contains("NSError") && !console.stderr.contains("Domain="), "\(console.stderr)")
    }
}
