import Foundation
import LongTests
import Testing

/// Runs the shell in docs/ci.md the way a team would paste it: the `sh` blocks marked `<!-- tested -->`,
/// the GitLab jobs' `script:` lines, and the GitHub Action's run step, in a temporary folder with the
/// built `session-conformance` on PATH. `python3 adapter/main.py`, the docs' example adapter, becomes the
/// reference adapter (with a known defect where the docs make a first expected-failures file).
@Suite("docs/ci.md runs as written", .serialized)
struct DocsSnippetTests {
    static let bin = Paths.root.appendingPathComponent(".build/debug")
    static let referenceAdapter = "exec " + bin.appendingPathComponent("session-conformance-reference-adapter").path
    /// A client with one MUST defect, so the expected-failures file the docs make is not empty.
    static let defectiveAdapter = referenceAdapter + " --variant token-in-log"

    static func document() throws -> String {
        try String(contentsOf: Paths.root.appendingPathComponent("docs/ci.md"), encoding: .utf8)
    }

    /// The fenced `sh` blocks right after a `marker` line (`<!-- tested -->`), in order.
    static func testedBlocks(_ markdown: String, marker: String = "<!-- tested -->") -> [String] {
        var blocks: [String] = []
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        while let line = lines.popFirst() {
            guard line == marker, lines.first == "```sh" else { continue }
            lines.removeFirst()
            var block: [String] = []
            while let next = lines.popFirst(), next != "```" { block.append(next) }
            blocks.append(block.joined(separator: "\n"))
        }
        return blocks
    }

    /// The `script:` items of a GitLab job in the docs' `yaml` blocks; an item continues on deeper-indented lines.
    static func gitLabScript(_ markdown: String, job: String) -> [String] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "\(job):") else { return [] }
        var items: [String] = []
        var inScript = false
        for line in lines[(start + 1)...] {
            if !line.hasPrefix(" ") { break }
            if line == "  script:" { inScript = true; continue }
            guard inScript else { continue }
            if line.hasPrefix("    - ") {
                items.append(String(line.dropFirst(6)))
            } else if line.hasPrefix("      "), !items.isEmpty {
                items[items.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)   // YAML folds the lines
            } else {
                break
            }
        }
        return items
    }

    /// Runs a script with bash -e in `directory`, with the built executables first on PATH.
    static func shell(_ script: String, in directory: URL, adapter: String = referenceAdapter,
                      environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let script = script.replacingOccurrences(of: "python3 adapter/main.py", with: adapter)
        var env = ["PATH": bin.path + ":/usr/bin:/bin", "HOME": directory.path]
        env.merge(environment) { $1 }
        return try ScriptShell.run(["-e", "-o", "pipefail", "-c", script], environment: env, in: directory)
    }

    /// A temporary folder with a copy of `Specs/`: the debug build has no specs beside it, as the archive has.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-snippets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Paths.root.appendingPathComponent("Specs"), to: url.appendingPathComponent("Specs"))
        return url
    }

    static func exists(_ path: String, in directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path)
    }

    @Test("the docs mark their runnable snippets and the GitLab jobs have scripts")
    func snippetsFound() throws {
        let markdown = try Self.document()
        #expect(Self.testedBlocks(markdown).count == 2)
        #expect(Self.gitLabScript(markdown, job: "conformance").count == 2)
        #expect(Self.gitLabScript(markdown, job: "conformance-report").count == 2)
    }

    @Test("first expected failures and baseline, the GitLab jobs (default branch and others), then the local loop")
    func snippetsRunInOrder() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.bin.appendingPathComponent("session-conformance").path),
                     "build the executables first (swift build --build-tests)")
        let markdown = try Self.document()
        let blocks = Self.testedBlocks(markdown)
        try #require(blocks.count == 2)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        // The first expected-failures file and baseline, from a client with a known defect.
        let first = try Self.shell(blocks[0], in: directory, adapter: Self.defectiveAdapter)
        #expect(first.status == 0, "\(first.output)")
        let expected = try String(contentsOf: directory.appendingPathComponent("conformance/expected-failures.yaml"), encoding: .utf8)
        #expect(expected.contains("- id: ") && expected.contains("  reason: \""), "\(expected)")
        #expect(Self.exists("conformance/baseline.json", in: directory))

        // GitLab: four parallel shard jobs, then the report job, on a feature branch and on the default branch.
        let shardScript = Self.gitLabScript(markdown, job: "conformance").joined(separator: "\n")
        for index in 1...4 {
            let shard = try Self.shell(shardScript, in: directory, adapter: Self.defectiveAdapter,
                                       environment: ["CI_NODE_INDEX": "\(index)", "CI_NODE_TOTAL": "4"])
            #expect(shard.status == 0, "shard \(index): \(shard.output)")
        }
        let reportScript = Self.gitLabScript(markdown, job: "conformance-report").joined(separator: "\n")
        let report = try Self.shell(reportScript, in: directory, environment: ["CI_COMMIT_BRANCH": "feature", "CI_DEFAULT_BRANCH": "main"])
        #expect(report.status == 0, "\(report.output)")
        for file in ["report.json", "report.junit.xml", "report.md", "report.html", "badge.svg"] {
            #expect(Self.exists("conformance-report/\(file)", in: directory), "\(file)")
        }

        // Locally, against the fixed client: the merge writes JSON, and the diff against the baseline passes.
        let local = try Self.shell(blocks[1], in: directory)
        #expect(local.status == 0, "\(local.output)")
        #expect(Self.exists("out/report.json", in: directory))
    }

    @Test("the explore gate passes a clean client and fails a defective one; the baseline diff keeps a known finding out")
    func exploreGate() throws {
        let markdown = try Self.document()
        let gate = try #require(Self.testedBlocks(markdown, marker: "<!-- tested: explore -->").first)
        let baseline = try #require(Self.testedBlocks(markdown, marker: "<!-- tested: explore baseline -->").first)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func read(_ path: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
        }

        let clean = try Self.shell(gate, in: directory)
        #expect(clean.status == 0, "\(clean.output)")
        #expect(try read("explore/report.md").contains("no failure found in 200 generated runs (an exploration certifies nothing)"))
        #expect(Self.exists("explore/report.junit.xml", in: directory))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("conformance"), withIntermediateDirectories: true)
        try read("explore/report.json").write(to: directory.appendingPathComponent("conformance/explore-baseline.json"),
                                              atomically: true, encoding: .utf8)

        let defective = try Self.shell(gate, in: directory, adapter: Self.defectiveAdapter)
        #expect(defective.status == 1, "\(defective.output)")
        #expect(try read("explore/report.md").contains("Gate: **failed**"))
        #expect(Self.exists("explore/cases/requirements.yaml", in: directory), "the shrunk cases form a spec folder")

        // Against a clean baseline the finding is a regression; against a baseline that has it, it is known.
        let regression = try Self.shell(baseline, in: directory, adapter: Self.defectiveAdapter)
        #expect(regression.status == 1, "\(regression.output)")
        #expect(regression.output.contains("LOG-NO-TOKEN-VALUES (MUST): pass -> fail"), "\(regression.output)")
        try read("explore/report.json").write(to: directory.appendingPathComponent("conformance/explore-baseline.json"),
                                              atomically: true, encoding: .utf8)
        let known = try Self.shell(baseline, in: directory, adapter: Self.defectiveAdapter)
        #expect(known.status == 0, "\(known.output)")
    }

    /// Long: the default set runs the same report script (on a feature branch) in `snippetsRunInOrder`.
    @Test("the GitLab regression gate fails a merge request pipeline whose client got worse, and skips the default branch", .long)
    func gitLabGateCanFail() throws {
        let markdown = try Self.document()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The baseline from the reference, which passes everything; a client with a defect it lists as expected.
        let setup = try Self.shell("""
            mkdir -p conformance
            session-conformance run --adapter "\(Self.referenceAdapter)" --report json=conformance/baseline.json > /dev/null
            session-conformance run --adapter "\(Self.defectiveAdapter)" \\
              --write-expected-failures conformance/expected-failures.yaml > /dev/null || true
            """, in: directory)
        try #require(setup.status == 0, "\(setup.output)")
        let shard = try Self.shell(Self.gitLabScript(markdown, job: "conformance").joined(separator: "\n"), in: directory,
                                   adapter: Self.defectiveAdapter, environment: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "1"])
        try #require(shard.status == 0, "\(shard.output)")
        let reportScript = Self.gitLabScript(markdown, job: "conformance-report").joined(separator: "\n")
        // A merge request pipeline sets no CI_COMMIT_BRANCH: the gate runs and finds the regression.
        let mergeRequest = try Self.shell(reportScript, in: directory, environment: ["CI_DEFAULT_BRANCH": "main"])
        #expect(mergeRequest.status == 1, "\(mergeRequest.output)")
        let defaultBranch = try Self.shell(reportScript, in: directory, environment: ["CI_COMMIT_BRANCH": "main", "CI_DEFAULT_BRANCH": "main"])
        #expect(defaultBranch.status == 0, "\(defaultBranch.output)")
    }

    @Test("the Action's run step: a whole run, two shards, their merge; it records the exit code and never fails itself")
    func actionRunStep() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = Paths.root.appendingPathComponent("scripts/action/run.sh").path
        let outputs = directory.appendingPathComponent("outputs")
        func step(_ environment: [String: String]) throws -> [String: String] {
            try? FileManager.default.removeItem(at: outputs)
            var env = ["GITHUB_OUTPUT": outputs.path, "REPORTS": "conformance-report"]
            env.merge(environment) { $1 }
            let run = try Self.shell("bash '\(script)'", in: directory, environment: env)
            #expect(run.status == 0, "\(run.output)")
            let text = (try? String(contentsOf: outputs, encoding: .utf8)) ?? ""
            return Dictionary(text.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { $1 })
        }
        let failing = try step(["ADAPTER": Self.defectiveAdapter])
        #expect(failing["exit-code"] == "1")
        #expect(failing["outcome"] == "not-conformant")
        let broken = try step(["ADAPTER": "exit 4", "REPORTS": "broken"])
        #expect(broken["exit-code"] == "3")
        #expect(broken["outcome"] == "adapter-not-started")
        #expect(failing["markdown"] == "conformance-report/report.md")
        #expect(Self.exists("conformance-report/badge.svg", in: directory))
        for index in 1...2 {
            let shard = try step(["ADAPTER": Self.referenceAdapter, "SHARD": "\(index)/2", "REPORTS": "shards", "WORLD": "rfc6749"])
            #expect(shard["exit-code"] == "0")
            #expect(shard["artifact"] == "conformance-shard-\(index)")
        }
        let merged = try step(["MERGE": "shards/shard-*.json"])
        #expect(merged["exit-code"] == "0")
        #expect(merged["artifact"] == "conformance-report")
        let mergedReport = try String(contentsOf: directory.appendingPathComponent("conformance-report/report.json"), encoding: .utf8)
        #expect(mergedReport.contains("\"rfc6749\""), "the shards ran under the world input's profile")
        let badge = try String(contentsOf: directory.appendingPathComponent("conformance-report/badge.svg"), encoding: .utf8)
        #expect(badge.contains("certified: core"))
    }
}
