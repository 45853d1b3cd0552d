import ConformanceReports
import Foundation
import Testing

@Suite("The spec digest")
struct SpecDigestTests {
    @Test("it equals the documented shell pipeline over the spec folder (coreutils' sha256sum)")
    func matchesSha256sum() throws {
        let shell = try #require(Program.available("bash"))
        let pipeline = #"cd "$1" && (find . -type f \( -name '*.yaml' -o -name '*.yml' -o -path './sources/*' \) | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) | sha256sum"#
        let run = try Program.run(shell, ["-c", pipeline, "digest", Paths.specs])
        try #require(run.status == 0, "\(run.stderr)")
        let expected = "sha256:" + (run.stdout.split(separator: " ").first.map(String.init) ?? "")
        let digest = try SpecDigest.of(specRoot: Paths.specs)
        #expect(digest.digest == expected)
        #expect(digest.files.contains { $0.path == "state-machine.yaml" })
        #expect(!digest.files.contains { $0.path.hasPrefix("schema/") })
        #expect(digest.files.contains { $0.path.hasPrefix("sources/") })
    }

    @Test("it changes when any spec file changes, and not for the editor schemas")
    func changesWithTheSpec() throws {
        let copy = try Paths.temporaryDirectory().appendingPathComponent("Specs")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: copy.path)
        let before = try SpecDigest.of(specRoot: copy.path)
        #expect(before == (try SpecDigest.of(specRoot: Paths.specs)))
        try "{}".write(to: copy.appendingPathComponent("schema/extra.schema.json"))
        #expect(try SpecDigest.of(specRoot: copy.path) == before)
        let cases = copy.appendingPathComponent("cases/refresh.yaml")
        try (try String(contentsOf: cases, encoding: .utf8) + "\n# a comment\n").write(to: cases)
        let after = try SpecDigest.of(specRoot: copy.path)
        #expect(after.digest != before.digest)
        let changed = zip(before.files, after.files).filter { $0.sha256 != $1.sha256 }.map(\.0.path)
        #expect(changed == ["cases/refresh.yaml"])
    }

    @Test("what the spec does not use is never opened: a FIFO, a file over the limit, notes; a spec file over it is an error")
    func unusedFilesAreNotRead() throws {
        let copy = try Paths.temporaryDirectory().appendingPathComponent("Specs")
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: copy.path)
        let before = try SpecDigest.of(specRoot: copy.path)
        // A FIFO nobody writes to would block a read forever; a sparse file over the limit would be read whole.
        #expect(mkfifo(copy.appendingPathComponent("notes.fifo").path, 0o600) == 0)
        let large = copy.appendingPathComponent("recording.bin").path
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        #expect(truncate(large, 200 * 1024 * 1024) == 0)
        #expect(try SpecDigest.of(specRoot: copy.path) == before)
        // A spec file over the limit is refused by its size, before a byte is read.
        let cases = copy.appendingPathComponent("cases/huge.yaml").path
        #expect(FileManager.default.createFile(atPath: cases, contents: nil))
        #expect(truncate(cases, 200 * 1024 * 1024) == 0)
        #expect(throws: SpecDigest.ReadError.self) { try SpecDigest.of(specRoot: copy.path) }
        try FileManager.default.removeItem(atPath: cases)
        // And a FIFO named like a spec file is refused at once, never waited on.
        #expect(mkfifo(copy.appendingPathComponent("cases/pipe.yaml").path, 0o600) == 0)
        #expect(throws: SpecDigest.ReadError.self) { try SpecDigest.of(specRoot: copy.path) }
    }
}
