import Foundation
import SessionConformanceCommands
import Testing

/// An exploration certifies nothing, but its reports say what it found, in agreement with its exit status: a clean
/// one passes its gate in every format, a failing one fails it.
@Suite("The reports of explore agree with its exit status")
struct ExploreReportTests {
    static let formats = ["json", "markdown", "junit", "tap", "html", "badge"]

    /// Runs explore with every report format into a new folder; returns the exit code and each report's text.
    static func explore(_ arguments: String...) throws -> (code: ExitCode, reports: [String: String], stdout: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explore-reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reports = formats.flatMap { ["--report", "\($0)=\(folder.path)/report.\($0)"] }
        let (code, console) = run(["explore", "--spec-root", Paths.specs, "--no-shrink"] + arguments + reports)
        var texts: [String: String] = [:]
        for format in formats {
            texts[format] = try String(contentsOfFile: "\(folder.path)/report.\(format)", encoding: .utf8)
        }
        return (code, texts, console.stdout)
    }

    static func json(_ text: String?) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data((text ?? "").utf8)) as? [String: Any])
    }

    @Test("a clean exploration exits 0 and every report says no failure was found in N runs, certifying nothing, gate passed")
    func cleanExplorationPasses() throws {
        let (code, reports, stdout) = try Self.explore("--runs", "20")
        #expect(code == .success, "\(stdout)")
        let said = "no failure found in 20 generated runs (an exploration certifies nothing)"
        let json = try Self.json(reports["json"])
        #expect((json["gate"] as? [String: Any])?["passed"] as? Bool == true, "\(json["gate"] ?? "")")
        #expect((json["run"] as? [String: Any])?["exploration"] as? [String: Int] == ["runs": 20])
        let verdicts = (json["certification"] as? [[String: Any]] ?? []).compactMap { $0["verdict"] as? String }
        #expect(!verdicts.isEmpty && verdicts.allSatisfy { $0 == "incomplete" }, "\(verdicts)")
        let markdown = try #require(reports["markdown"])
        #expect(markdown.hasPrefix("## ✅ session-conformance explore: SessionKit 0.1.0: \(said)\n\nGate: **passed**\n"), "\(markdown.prefix(300))")
        #expect(!markdown.contains("not certified") && !markdown.contains("failed"))
        let junit = try #require(reports["junit"])
        #expect(junit.contains("<testsuites errors=\"0\" failures=\"0\" "), "\(junit.prefix(300))")
        #expect(junit.contains("<property name=\"exploration\" value=\"\(said)\"/>"))
        let tap = try #require(reports["tap"])
        #expect(tap.contains("\n# exploration: \(said)\n"))
        #expect(!tap.contains("\nnot ok "))
        let html = try #require(reports["html"])
        #expect(html.contains("<div class=\"verdict good\"><span class=\"big\">No failure found</span> <span>\(said)</span></div>"))
        #expect(!html.contains("Gate failed"))
        #expect(reports["badge"]?.contains("<title>session-conformance: explored: no failure in 20 runs</title>") == true)
    }

    @Test("an exploration that found a failure exits 1 and every report says it failed, gate failed")
    func failingExplorationFails() throws {
        let (code, reports, stdout) = try Self.explore("--variant", "refresh-per-request", "--runs", "30")
        #expect(code == .conformanceFailure, "\(stdout)")
        let said = "failed: 1 distinct failure found in 30 generated runs"
        let json = try Self.json(reports["json"])
        let gate = try #require(json["gate"] as? [String: Any])
        #expect(gate["passed"] as? Bool == false)
        #expect(gate["reasons"] as? [String] == ["MUST requirement REFRESH-SINGLE-FLIGHT failed"])
        let markdown = try #require(reports["markdown"])
        #expect(markdown.contains("## ❌ session-conformance explore: SessionKit (defect: refresh-per-request) 0.1.0: \(said)\n\n"
                                  + "Gate: **failed**: MUST requirement REFRESH-SINGLE-FLIGHT failed\n"), "\(markdown.prefix(300))")
        let junit = try #require(reports["junit"])
        #expect(!junit.contains("<testsuites errors=\"0\" failures=\"0\" "))
        #expect(junit.contains("<property name=\"exploration\" value=\"\(said)\"/>"))
        let tap = try #require(reports["tap"])
        #expect(tap.contains("\n# exploration: \(said)\n"))
        #expect(tap.contains("\nnot ok ") && tap.contains("REFRESH-SINGLE-FLIGHT"))
        let html = try #require(reports["html"])
        #expect(html.contains("<span class=\"big\">Exploration failed</span> <span>\(said)</span>"))
        #expect(html.contains("Gate failed"))
        #expect(reports["badge"]?.contains("<title>session-conformance: explored: failed</title>") == true)
    }

    @Test("an exploration that explored nothing exits 1 and its report's gate fails, saying so")
    func exploredNothingFails() throws {
        let (code, reports, stdout) = try Self.explore("--world", "rfc6749", "--variant", "naive-ios", "--runs", "30")
        #expect(code == .conformanceFailure, "\(stdout)")
        let gate = try #require(try Self.json(reports["json"])["gate"] as? [String: Any])
        #expect(gate["passed"] as? Bool == false)
        // The port also fails SIGNIN-VALIDATE-INPUT (it checks an address only for an '@'), before any sign-in.
        let reasons = gate["reasons"] as? [String] ?? []
        #expect(reasons.filter { $0.hasPrefix("the exploration explored nothing: ") }.count == 1, "\(reasons)")
        #expect(reports["markdown"]?.contains("Gate: **failed**: MUST requirement SIGNIN-VALIDATE-INPUT failed; the exploration explored nothing: ") == true)
        #expect(reports["tap"]?.contains("the client reached an authenticated session in none of the ") == true)
    }

    @Test("merged shards of a clean exploration pass: merge exits 0 and counts the runs of every shard")
    func mergedCleanShardsPass() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("explore-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for shard in 1...2 {
            let (code, console) = run("explore", "--spec-root", Paths.specs, "--runs", "20", "--shard", "\(shard)/2", "--no-shrink",
                                      "--report", "json=\(folder.path)/shard-\(shard).json")
            #expect(code == .success, "\(console.stdout)")
        }
        let merged = folder.appendingPathComponent("merged.json").path
        let (code, console) = run("merge", "\(folder.path)/shard-1.json", "\(folder.path)/shard-2.json", "--report", "json=\(merged)")
        #expect(code == .success, "\(console.stdout)\(console.stderr)")
        let json = try Self.json(try String(contentsOfFile: merged, encoding: .utf8))
        #expect((json["gate"] as? [String: Any])?["passed"] as? Bool == true)
        #expect((json["run"] as? [String: Any])?["exploration"] as? [String: Int] == ["runs": 20])
        #expect(console.stderr.contains("no failure found in 20 generated runs (an exploration certifies nothing)"), "\(console.stderr)")
    }
}
