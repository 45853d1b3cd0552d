import Foundation
import SessionConformanceCommands
import SpecModel
import Testing

/// The release as far as a machine without GitHub can check it: one version (SessionConformance.version), one
/// repository path (action.yml's `repository` default), and every file that names them agreeing; the
/// release workflow's file and scripts/release.sh; action.yml and docs/ci.md's tables of its inputs and
/// outputs; and docs/ci.md's download commands run against a local release folder.
@Suite("The release: version, repository, workflow and docs agree", .serialized)
struct ReleaseFilesTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Paths.root.appendingPathComponent(path), encoding: .utf8)
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (0..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// Where a line that installs the suite names another repository or version than the canonical ones.
    /// Install lines: `uses: OWNER/NAME@vX.Y.Z` (not actions/), release URLs on github.com, ghcr.io images;
    /// and every X.Y.Z (an IP address aside) names the tool's version.
    static func installFindings(_ text: String, file: String, repository: String, version: String) -> (findings: [String], installLines: Int) {
        var findings: [String] = []
        var installLines = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let at = "\(file):\(number + 1)"
            if line.contains("your-org") { findings.append("\(at): names your-org") }
            for match in matches(#"uses:\s*([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@([A-Za-z0-9_.-]+)"#, in: line) where !match[1].hasPrefix("actions/") {
                installLines += 1
                if match[1] != repository { findings.append("\(at): uses \(match[1]), not \(repository)") }
                if match[2] != "v" + version { findings.append("\(at): uses @\(match[2]), not @v\(version)") }
            }
            for match in matches(#"github\.com/([A-Za-z0-9_.<>-]+/[A-Za-z0-9_.<>-]+)/releases"#, in: line) where match[1] != "<repository>" {
                installLines += 1
                if match[1] != repository { findings.append("\(at): releases of \(match[1]), not \(repository)") }
            }
            for match in matches(#"ghcr\.io/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)(:[A-Za-z0-9_.-]+)?"#, in: line) {
                installLines += 1
                if match[1] != repository { findings.append("\(at): image ghcr.io/\(match[1]), not \(repository)") }
            }
            for match in matches(#"(?<![0-9.])v?([0-9]+\.[0-9]+\.[0-9]+)(?!\.?[0-9])"#, in: line) where match[1] != version {
                findings.append("\(at): names version \(match[1]), not \(version)")
            }
        }
        return (findings, installLines)
    }

    @Test("every install line in README.md and docs/ names action.yml's repository and SessionConformance.version")
    func installLinesAgree() throws {
        let repository = try #require(try ActionMetadata.load().canonicalRepository)
        let version = SessionConformance.version
        var findings: [String] = []
        for file in ["README.md", "docs/ci.md"] {
            let result = Self.installFindings(try Self.text(file), file: file, repository: repository, version: version)
            findings += result.findings
            #expect(result.installLines >= 3, "\(file) has the GitHub Action, the release and the image lines")
        }
        // The other docs have no install line; they must not name another repository either.
        let docs = try FileManager.default.contentsOfDirectory(atPath: Paths.root.appendingPathComponent("docs").path)
        for file in docs.filter({ $0.hasSuffix(".md") && $0 != "ci.md" }).map({ "docs/" + $0 }) {
            let text = try Self.text(file)
            findings += Self.installFindings(text, file: file, repository: repository, version: version).findings
                .filter { !$0.contains("names version") }   // examples of adapters' own versions
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")

        // The check finds what it looks for.
        let stale = """
            - uses: your-org/session-conformance@v0.0.9
            curl -fsSLO "https://github.com/someone/session-conformance/releases/download/v0.0.9/x.tar.gz"
            docker pull ghcr.io/\(repository):0.0.9
            - uses: actions/checkout@v4
            """
        let found = Self.installFindings(stale, file: "stale", repository: repository, version: version)
        #expect(found.installLines == 3)
        #expect(found.findings.count == 7, "\(found.findings)")
    }

    @Test("CHANGELOG.md's newest release is SessionConformance.version and names the spec version of Specs/; releases go down")
    func changelogNamesTheRelease() throws {
        let spec = try #require(SpecLinter.lint(paths: [Paths.specs]).bundle.specVersion)
        let lines = try Self.text("CHANGELOG.md").split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "## Releases"), "CHANGELOG.md has a '## Releases' part")
        let headings = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }.filter { $0.hasPrefix("### ") }.map(String.init)
        let releases = headings.compactMap { heading -> (version: [Int], spec: String)? in
            guard let match = Self.matches(#"^### session-conformance ([0-9]+)\.([0-9]+)\.([0-9]+) \(spec ([0-9]+\.[0-9]+)\)$"#, in: heading).first else { return nil }
            return (match[1...3].compactMap { Int($0) }, match[4])
        }
        #expect(releases.count == headings.count, "every release heading is '### session-conformance X.Y.Z (spec A.B)': \(headings)")
        let newest = try #require(releases.first)
        #expect(newest.version.map(String.init).joined(separator: ".") == SessionConformance.version,
                "raise SessionConformance.version with a CHANGELOG.md release entry")
        #expect(newest.spec == spec.description, "the newest release ships the spec of Specs/")
        #expect(zip(releases, releases.dropFirst()).allSatisfy { $0.version.lexicographicallyPrecedes($1.version) == false && $0.version != $1.version })
    }

    @Test("release.sh: check-tag takes only v<version>, notes are the newest release entry, sums check each .sha256 and list every archive")
    func releaseScript() throws {
        let directory = try ScriptShell.temporaryDirectory("release-script")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = Paths.root.appendingPathComponent("scripts/release.sh").path
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        func release(_ arguments: String...) throws -> (status: Int32, output: String) {
            try ScriptShell.run([script] + arguments, environment: environment, in: directory)
        }
        let version = SessionConformance.version
        let good = try release("check-tag", "v\(version)")
        #expect(good.status == 0 && good.output == version + "\n", "\(good.output)")
        for tag in ["v9.9.9", version, "v\(version)-rc1", ""] {
            let bad = try release("check-tag", tag)
            #expect(bad.status != 0 && bad.output.contains("is not v\(version)"), "\(tag): \(bad.output)")
        }
        let notes = try release("notes")
        #expect(notes.status == 0)
        #expect(notes.output.contains("SHA256SUMS") && !notes.output.contains("### "), "\(notes.output)")

        // Two archives as package.sh leaves them: each with its .sha256.
        let dist = directory.appendingPathComponent("dist")
        let made = try ScriptShell.run(["-c", """
            set -e
            mkdir -p dist && cd dist
            for platform in linux-x86_64 linux-aarch64; do
                echo "$platform" > a && tar -czf session-conformance-\(version)-$platform.tar.gz a && rm a
                sha256sum session-conformance-\(version)-$platform.tar.gz > session-conformance-\(version)-$platform.tar.gz.sha256
            done
            """], environment: environment, in: directory)
        try #require(made.status == 0, "\(made.output)")
        let sums = try release("sums", dist.path)
        #expect(sums.status == 0, "\(sums.output)")
        let listed = try String(contentsOf: dist.appendingPathComponent("SHA256SUMS"), encoding: .utf8).split(separator: "\n")
        #expect(listed.count == 2 && listed.allSatisfy { $0.hasSuffix(".tar.gz") && $0.split(separator: " ").first?.count == 64 }, "\(listed)")
        // An archive changed after package.sh wrote its .sha256 stops the release.
        try "changed".write(to: dist.appendingPathComponent("session-conformance-\(version)-linux-x86_64.tar.gz"), atomically: true, encoding: .utf8)
        let changed = try release("sums", dist.path)
        #expect(changed.status != 0 && changed.output.contains("does not match"), "\(changed.output)")
    }

    @Test("release.yml: on a v* tag, checks the tag first, builds both Linux archives in the Dockerfile's Swift image and the macOS one with Homebrew's libyaml, pushes every image target, publishes with gh")
    func releaseWorkflow() throws {
        let workflow = try Self.text(".github/workflows/release.yml")
        let code = workflow.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
        #expect(code.contains("tags: [\"v*\"]"))
        let uses = Set(Self.matches(#"uses:\s*(\S+)"#, in: code).map { $0[1] })
        #expect(uses.isSubset(of: ["actions/checkout@v4", "actions/upload-artifact@v4", "actions/download-artifact@v4"]), "\(uses)")
        #expect(code.contains("bash scripts/release.sh check-tag \"$GITHUB_REF_NAME\""))
        for platform in ["{ runner: ubuntu-24.04, platform: linux-x86_64 }", "{ runner: ubuntu-24.04-arm, platform: linux-aarch64 }",
                         "{ runner: macos-15, platform: darwin-arm64 }"] {
            #expect(code.contains(platform), "\(platform)")
        }
        #expect(code.contains("needs: version") && code.contains("needs: [version, archive, image-manifest]"))
        #expect(code.contains("bash scripts/package.sh dist") && code.contains("bash scripts/release.sh sums dist"))
        #expect(code.contains("if: runner.os == 'macOS'") && code.contains("brew install libyaml pkg-config"))
        #expect(code.contains("gh release create \"$GITHUB_REF_NAME\"") && code.contains("dist/SHA256SUMS") && code.contains("dist/*.tar.gz.sha256"))

        // The archives are built in the image the Dockerfile builds in.
        let dockerfile = try Self.text("Dockerfile")
        let dockerSwift = try #require(Self.matches(#"ARG SWIFT_IMAGE=(\S+)"#, in: dockerfile).first?[1])
        #expect(Self.matches(#"SWIFT_IMAGE: (\S+)"#, in: code).first?[1] == dockerSwift)
        // Every image the workflow pushes is a Dockerfile target, and every variant is pushed.
        let stages = Set(DeliveryFilesTests.Dockerfile(dockerfile).stages.compactMap { $0.name }).subtracting(["build"])
        let targets = try #require(Self.matches(#"for target in ([a-z ]+); do"#, in: code).first?[1]).split(separator: " ").map(String.init)
        #expect(Set(targets) == stages, "pushed \(targets), Dockerfile stages \(stages)")
    }

    /// The rows of the Markdown table whose header is `header`: first cell without backticks -> the row's cells.
    static func table(_ markdown: String, header: String) -> [String: [String]] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: header) else { return [:] }
        var rows: [String: [String]] = [:]
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[0].replacingOccurrences(of: "`", with: "")] = cells
        }
        return rows
    }

    @Test("docs/ci.md's tables list every input of action.yml with its default, and every output")
    func actionInputsDocumented() throws {
        let action = try ActionMetadata.load()
        let doc = try Self.text("docs/ci.md")
        let inputs = Self.table(doc, header: "| input | default | meaning |")
        let outputs = Self.table(doc, header: "| output | meaning |")
        #expect(Set(inputs.keys) == Set(action.inputs.keys), "docs \(inputs.keys.sorted()), action.yml \(action.inputs.keys.sorted())")
        #expect(Set(outputs.keys) == Set(action.outputs.keys), "docs \(outputs.keys.sorted()), action.yml \(action.outputs.keys.sorted())")
        for (name, input) in action.inputs {
            #expect(input["description"]?.string?.isEmpty == false, "\(name) has a description")
            guard let cells = inputs[name], cells.count == 3 else { continue }
            let value = input["default"]?.string ?? ""
            if value.isEmpty {
                #expect(!cells[1].hasPrefix("`"), "\(name): action.yml has no default; docs say \(cells[1])")
            } else {
                #expect(cells[1].contains("`\(value)`"), "\(name): action.yml's default is \(value); docs say \(cells[1])")
            }
        }
    }

    @Test("docs/ci.md's download commands fetch the archive, check its .sha256, unpack it and put it on PATH")
    func downloadCommandsRun() throws {
        let doc = try Self.text("docs/ci.md").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = try #require(doc.firstIndex(of: "<!-- tested: release download -->"))
        try #require(doc[marker + 1] == "```sh")
        let block = doc[(marker + 2)...].prefix { $0 != "```" }.joined(separator: "\n")
        let repository = try #require(try ActionMetadata.load().canonicalRepository)
        let releases = "https://github.com/\(repository)/releases/download"
        #expect(block.contains(releases))

        let runner = try ActionScriptsTests.Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        let machine = try ScriptShell.run(["-c", "uname -m"], environment: ["PATH": "/usr/bin:/bin"], in: runner.directory)
        let platform = "linux-" + machine.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try runner.publish(version: SessionConformance.version, platform: platform)
        let local = block.replacingOccurrences(of: releases, with: "file://" + runner.download.path)
        let run = try ScriptShell.run(["-e", "-o", "pipefail", "-c", local],
                                      environment: ["PATH": "/usr/bin:/bin", "HOME": runner.directory.path], in: runner.directory)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(": OK"), "sha256sum -c checked it: \(run.output)")
        #expect(run.output.contains("session-conformance \(SessionConformance.version) (the released archive)"), "\(run.output)")
        #expect(FileManager.default.isExecutableFile(atPath: runner.directory.path + "/.local/session-conformance/session-conformance"))

        // A corrupted download stops the block at the check.
        let archive = runner.download.appendingPathComponent("v\(SessionConformance.version)/session-conformance-\(SessionConformance.version)-\(platform).tar.gz")
        try "corrupted".write(to: archive, atomically: true, encoding: .utf8)
        let corrupted = try ScriptShell.run(["-e", "-o", "pipefail", "-c", local],
                                            environment: ["PATH": "/usr/bin:/bin", "HOME": runner.directory.path], in: runner.directory)
        #expect(corrupted.status != 0 && corrupted.output.contains("FAILED"), "\(corrupted.output)")
    }
}
