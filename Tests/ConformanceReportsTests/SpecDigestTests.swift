import ConformanceReports
import Foundation
import Testing

@Suite("The spec digest")
struct SpecDigestTests {
    @Test("it equals the documented shell pipeline over the spec folder (coreutils' sha256sum)")
    func matchesSha256sum() throws {
        let shell = try #require(Program.available("bash"))
        let pipeline = #"cd "$1" && (find . -type f ! -path './schema/*' ! -name '.*' | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) | sha256sum"#
        let run = try Program.run(shell, ["-c", pipeline, "digest", Paths.specs])
        try #require(run.status == 0, "\(run.stderr)")
        let expected = "sha256:" + (run.stdout.split(separator: " ").first.map(String.init) ?? "")
        let digest = try SpecDigest.of(specRoot: Paths.specs)
        #expect(digest.digest == expected)
        #expect(digest.files.contains { $0.path == "state-machine.yaml" })
        #expect(!digest.files.contains { $0.path.hasPrefix("schema/") })
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
}
