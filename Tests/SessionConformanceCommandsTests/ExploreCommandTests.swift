import ConformanceRunner
import Foundation
import SessionConformanceCommands
import Testing

@Suite("The explore command")
struct ExploreCommandTests {
    @Test("the replay command explore prints plays the run again: its program, trace and findings, exit 1")
    func replayPrintsTheRun() throws {
        let (_, found) = run("explore", "--spec-root", Paths.specs, "--variant", "refresh-per-request", "--runs", "60", "--no-shrink")
        let block = try #require(found.stdout.components(separatedBy: "FAIL REFRESH-SINGLE-FLIGHT by oracle:single-refresh-in-flight\n").dropFirst().first,
                                 "\(found.stdout)")
        let line = try #require(block.split(separator: "\n").first { $0.contains("replay:") })
        let command = line.split(separator: " ").map(String.init).filter { !$0.isEmpty }
        // `replay:    session-conformance explore --replay S:K --variant refresh-per-request`
        let arguments = Array(command.drop { $0 != "explore" })
        #expect(arguments.contains("--variant"))
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: arguments + ["--spec-root", Paths.specs], console: console)
        #expect(code == .conformanceFailure, "\(console.stderr)")
        let runID = try #require(arguments.firstIndex(of: "--replay").map { arguments[$0 + 1] })
        let parsed = try #require(ExploreRunID(runID))
        let aim = parsed.focus.map { ", aimed at \($0)," } ?? ""
        #expect(console.stdout.hasPrefix("run \(parsed.run) of seed \(parsed.seed)\(aim) (case explore-seed-\(parsed.seed)-run-\(parsed.run)): fail\n"),
                "\(console.stdout.prefix(200))")
        #expect(console.stdout.contains("\nprogram:\n  - "))
        #expect(console.stdout.contains("\ntrace:\n#1 "))
        #expect(console.stdout.contains("REFRESH-SINGLE-FLIGHT (oracle:single-refresh-in-flight)"))
    }

    @Test("explore prints each distinct failure once with its replay command and its shrunk case, which lints clean")
    func failuresPrintedAndShrunk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--variant", "token-in-log", "--runs", "30",
                                  "--shrink-dir", folder.path)
        #expect(code == .conformanceFailure)
        #expect(console.stdout.contains("FAIL LOG-NO-TOKEN-VALUES by oracle:no-token-in-client-output\n  first run: "))
        #expect(console.stdout.contains("  replay:    session-conformance explore --replay 1:"))
        #expect(console.stdout.components(separatedBy: "FAIL LOG-NO-TOKEN-VALUES").count == 2)
        let cases = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cases").path)
        #expect(cases.contains { $0.hasSuffix("-no-token-in-client-output.yaml") }, "\(cases)")
        let (lintCode, lint) = run("lint", folder.path)
        #expect(lintCode == .success, "\(lint.stdout)\(lint.stderr)")
    }

    @Test("a shrunk case carries the world it was found under, and its printed command replays it there")
    func shrunkCaseCarriesItsWorld() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A world file of the team's own, outside the spec: the spec's rfc6749 profile under another name.
        let profile = try String(contentsOfFile: Paths.specs + "/worlds/rfc6749.yaml", encoding: .utf8)
            .replacingOccurrences(of: "\nname: rfc6749\n", with: "\nname: field-world\n")
        let worldFile = folder.appendingPathComponent("field-world.yaml")
        try profile.write(to: worldFile, atomically: true, encoding: .utf8)
        let shrinkDir = folder.appendingPathComponent("shrunk")
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--variant", "refresh-per-request", "--world", worldFile.path,
                                  "--runs", "60", "--shrink-dir", shrinkDir.path)
        #expect(code == .conformanceFailure, "\(console.stderr)")
        let line = try #require(console.stdout.split(separator: "\n").first { $0.contains("run it:") }, "\(console.stdout)")
        #expect(line.contains(" --world field-world "), "\(line)")
        let worlds = try FileManager.default.contentsOfDirectory(atPath: shrinkDir.appendingPathComponent("worlds").path)
        #expect(Set(worlds) == ["json-v1.yaml", "rfc6749.yaml", "field-world.yaml"])
        let arguments = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            .drop { $0 != "mutants" }
        let (replayCode, replay) = run(Array(arguments))
        #expect(replayCode == .success, "\(replay.stderr)")
        #expect(replay.stdout.contains("score: 1 / 1 killed"), "\(replay.stdout)")
    }

    @Test("the reports of explore shards merge into one with every distinct failure once")
    func shardsMerge() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var shardCases: [Set<String>] = []
        for shard in 1...2 {
            let path = folder.appendingPathComponent("shard-\(shard).json").path
            let (code, console) = run("explore", "--spec-root", Paths.specs, "--variant", "refresh-per-request", "--runs", "80",
                                      "--shard", "\(shard)/2", "--no-shrink", "--report", "json=\(path)")
            #expect(code == .conformanceFailure, "\(console.stderr)")
            shardCases += try Self.failureCases(path)
        }
        let merged = folder.appendingPathComponent("merged.json").path
        let (code, console) = run("merge", folder.appendingPathComponent("shard-1.json").path,
                                  folder.appendingPathComponent("shard-2.json").path, "--report", "json=\(merged)")
        #expect(code == .conformanceFailure, "\(console.stderr)")
        let cases = try Self.failureCases(merged)
        // Each shard reported single flight broken with its own first run; the merged report keeps the failures
        // of both shards, but no case that adds none.
        #expect(shardCases.filter { $0.contains("oracle:single-refresh-in-flight") }.count == 2)
        #expect(cases.reduce(Set()) { $0.union($1) } == shardCases.reduce(Set()) { $0.union($1) })
        #expect(cases.count < shardCases.count)
    }

    @Test("bad explore options are usage errors")
    func usageErrors() {
        #expect(run("explore", "--replay", "1").code == .specOrUsageError)
        #expect(run("explore", "--replay", "1:0").code == .specOrUsageError)
        #expect(run("explore", "--shard", "3/2").code == .specOrUsageError)
        #expect(run("explore", "--time-budget", "-1").code == .specOrUsageError)
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--variant", "no-such-variant")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: unknown variant 'no-such-variant'\n"))
    }

    /// The checks of each explore failure case of a JSON report, one set per case.
    static func failureCases(_ path: String) throws -> [Set<String>] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = json["cases"] as? [[String: Any]] ?? []
        return cases.compactMap { item in
            guard let id = item["id"] as? String, id.contains("-run-") else { return nil }
            let findings = item["findings"] as? [[String: Any]] ?? []
            return Set(findings.compactMap { $0["check"] as? String })
        }
    }
}
