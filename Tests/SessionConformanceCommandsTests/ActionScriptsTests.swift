import Foundation
import SessionConformanceCommands
import Testing

/// scripts/action/fetch.sh with the environment a composite action's step really gets: an empty
/// GITHUB_ACTION_REPOSITORY and GITHUB_ACTION_REF (actions/runner#2525), GITHUB_OUTPUT and GITHUB_PATH temp
/// files, RUNNER_OS and RUNNER_ARCH, and the env action.yml passes; the release is a local folder behind a
/// file:// URL. A fake `swift` on PATH records whether anything was built.
@Suite("The Action's fetch step, as a composite action runs it", .serialized)
struct ActionScriptsTests {
    static let fetch = Paths.root.appendingPathComponent("scripts/action/fetch.sh").path

    /// A runner's folder: the release behind a file:// URL, a fake toolchain, the step's files.
    struct Runner {
        let directory: URL
        var download: URL { directory.appendingPathComponent("download") }
        var fakeBin: URL { directory.appendingPathComponent("fake-bin") }
        var swiftLog: URL { directory.appendingPathComponent("swift.log") }
        var githubOutput: URL { directory.appendingPathComponent("github-output") }
        var githubPath: URL { directory.appendingPathComponent("github-path") }
        var runnerTemp: URL { directory.appendingPathComponent("runner-temp") }

        init() throws {
            directory = try ScriptShell.temporaryDirectory("action-fetch")
            try FileManager.default.createDirectory(at: runnerTemp, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: fakeBin, withIntermediateDirectories: true)
            // A `swift` that records its arguments and, for --show-bin-path, names a folder of fake executables
            // (package.sh packages them); a `clang` that names a libstdc++.a for package.sh's static link.
            let binaries = directory.appendingPathComponent("fake-release-bin")
            try FileManager.default.createDirectory(at: binaries, withIntermediateDirectories: true)
            for executable in ["session-conformance", "session-conformance-reference-adapter"] {
                try write("#!/bin/sh\necho \"\(executable) built from source\"\n", to: binaries.appendingPathComponent(executable), executable: true)
            }
            try write("", to: directory.appendingPathComponent("libstdc++.a"), executable: false)
            try write("""
                #!/bin/sh
                echo "swift $*" >> '\(swiftLog.path)'
                case "$*" in *--show-bin-path*) echo '\(binaries.path)' ;; esac
                """, to: fakeBin.appendingPathComponent("swift"), executable: true)
            try write("#!/bin/sh\necho '\(directory.appendingPathComponent("libstdc++.a").path)'\n",
                      to: fakeBin.appendingPathComponent("clang"), executable: true)
            // The scripts start package.sh and version.sh with `bash`: the bash under test.
            try FileManager.default.createSymbolicLink(atPath: fakeBin.appendingPathComponent("bash").path, withDestinationPath: ScriptShell.bash)
        }

        func write(_ text: String, to url: URL, executable: Bool) throws {
            try text.write(to: url, atomically: true, encoding: .utf8)
            if executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path) }
        }

        /// A release v<version> holding the archive of `platform` (its CLI prints a line naming the archive),
        /// its .sha256, and SHA256SUMS: right, or naming another digest.
        func publish(version: String, platform: String, rightSum: Bool = true) throws {
            let name = "session-conformance-\(version)-\(platform)"
            let script = """
                set -e
                mkdir -p stage/\(name) download/v\(version)
                printf '#!/bin/sh\\necho "session-conformance \(version) (the released archive)"\\n' > stage/\(name)/session-conformance
                chmod +x stage/\(name)/session-conformance
                tar -C stage -czf download/v\(version)/\(name).tar.gz \(name)
                cd download/v\(version)
                sha256sum \(name).tar.gz > SHA256SUMS
                cp SHA256SUMS \(name).tar.gz.sha256
                \(rightSum ? "" : "echo other | sha256sum | sed 's/-$/\(name).tar.gz/' > SHA256SUMS")
                """
            let made = try ScriptShell.run(["-c", script], environment: ["PATH": "/usr/bin:/bin"], in: directory)
            guard made.status == 0 else { throw ActionMetadata.MetadataError(description: made.output) }
        }

        /// The environment of action.yml's fetch steps on a Linux x64 runner; `inputs` are the step's env.
        func environment(_ inputs: [String: String], actionPath: URL = Paths.root) throws -> [String: String] {
            let action = try ActionMetadata.load()
            var environment = [
                "PATH": fakeBin.path + ":/usr/bin:/bin", "HOME": directory.path,
                "GITHUB_ACTION_REPOSITORY": "", "GITHUB_ACTION_REF": "", "GITHUB_ACTION_PATH": actionPath.path,
                "GITHUB_OUTPUT": githubOutput.path, "GITHUB_PATH": githubPath.path,
                "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_TEMP": runnerTemp.path,
                // What action.yml passes with every input at its default.
                "VERSION": "", "ACTION_REF": "", "ACTION_PATH": actionPath.path,
                "REPOSITORY": action.canonicalRepository ?? "", "BUILD_FROM_SOURCE": "false",
                "SESSION_CONFORMANCE_DOWNLOAD_URL": "file://" + download.path,
            ]
            environment.merge(inputs) { $1 }
            return environment
        }

        /// Runs fetch.sh resolve then install, as the action's two steps do (the cache step between them misses).
        func fetch(_ inputs: [String: String] = [:], actionPath: URL = Paths.root) throws -> (status: Int32, output: String) {
            let environment = try environment(inputs, actionPath: actionPath)
            let resolve = try ScriptShell.run([ActionScriptsTests.fetch, "resolve"], environment: environment, in: directory)
            guard resolve.status == 0 else { return resolve }
            let install = try ScriptShell.run([ActionScriptsTests.fetch, "install"], environment: environment, in: directory)
            return (install.status, resolve.output + install.output)
        }

        var installed: String? {
            let outputs = ScriptShell.outputs(githubOutput)
            guard let path = outputs["path"], FileManager.default.isExecutableFile(atPath: path + "/session-conformance") else { return nil }
            return path
        }
        var pathLines: String { (try? String(contentsOf: githubPath, encoding: .utf8)) ?? "" }
        var built: Bool { FileManager.default.fileExists(atPath: swiftLog.path) }
    }

    @Test("resolve: the version of the action's sources, the runner's platform, a cache key of both; no github.action_repository")
    func resolvesVersionAndPlatform() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        func resolve(_ inputs: [String: String]) throws -> (Int32, [String: String], String) {
            try? FileManager.default.removeItem(at: runner.githubOutput)
            let run = try ScriptShell.run([Self.fetch, "resolve"], environment: try runner.environment(inputs), in: runner.directory)
            return (run.status, ScriptShell.outputs(runner.githubOutput), run.output)
        }
        let version = SessionConformance.version
        let linux = try resolve([:])
        #expect(linux.0 == 0, "\(linux.2)")
        #expect(linux.1["version"] == version)
        #expect(linux.1["cache-key"] == "session-conformance-\(version)-linux-x86_64")
        #expect(linux.1["dir"] == runner.runnerTemp.path + "/session-conformance/\(version)/linux-x86_64")
        #expect(try resolve(["RUNNER_ARCH": "ARM64"]).1["cache-key"] == "session-conformance-\(version)-linux-aarch64")
        #expect(try resolve(["RUNNER_OS": "macOS", "RUNNER_ARCH": "ARM64"]).1["cache-key"] == "session-conformance-\(version)-darwin-arm64")
        #expect(try resolve(["VERSION": "v0.2.0"]).1["version"] == "0.2.0")
        #expect(try resolve(["ACTION_REF": "v0.3.1"]).1["version"] == "0.3.1", "the action's ref, when the runner fills it")
        #expect(try resolve(["ACTION_REF": "main"]).1["version"] == version)
        let windows = try resolve(["RUNNER_OS": "Windows"])
        #expect(windows.0 != 0 && windows.2.contains("not supported"), "\(windows.2)")
        let notAVersion = try resolve(["VERSION": "latest"])
        #expect(notAVersion.0 != 0 && notAVersion.2.contains("not a release version"), "\(notAVersion.2)")
        // A build from source is keyed by the sources too: another checkout is another build.
        let source = try resolve(["BUILD_FROM_SOURCE": "true"])
        #expect(source.1["cache-key"]?.hasPrefix("session-conformance-\(version)-linux-x86_64-source-") == true, "\(source.1)")
    }

    @Test("a good archive: its SHA-256 checked against SHA256SUMS, unpacked, put on PATH, and taken from the cache next time")
    func installsAVerifiedRelease() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        try runner.publish(version: SessionConformance.version, platform: "linux-x86_64")
        let run = try runner.fetch()
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("as SHA256SUMS says"), "\(run.output)")
        #expect(run.output.contains("(the released archive)"), "the installed CLI ran: \(run.output)")
        let path = try #require(runner.installed, "\(run.output)")
        #expect(runner.pathLines == path + "\n")
        #expect(ScriptShell.outputs(runner.githubOutput)["version"] == SessionConformance.version)
        #expect(!runner.built)

        // The cache step restored the folder: nothing is downloaded (the release is gone).
        try FileManager.default.removeItem(at: runner.download)
        let again = try runner.fetch()
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("from the cache"), "\(again.output)")
    }

    @Test("an archive whose SHA-256 is not the one SHA256SUMS lists is refused, and nothing is installed")
    func refusesAWrongChecksum() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        try runner.publish(version: SessionConformance.version, platform: "linux-x86_64", rightSum: false)
        let run = try runner.fetch()
        #expect(run.status != 0)
        #expect(run.output.contains("::error title=session-conformance: fetch failed::"), "\(run.output)")
        #expect(run.output.contains("refused"), "\(run.output)")
        #expect(runner.installed == nil && runner.pathLines.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: runner.runnerTemp.path + "/session-conformance/\(SessionConformance.version)/linux-x86_64"))
        #expect(!runner.built)
    }

    @Test("a missing release fails with what to do, and builds nothing: no release for the version, the platform or a sums file")
    func missingReleaseFailsClearly() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        try runner.publish(version: SessionConformance.version, platform: "linux-x86_64")
        let noVersion = try runner.fetch(["VERSION": "9.9.9"])
        #expect(noVersion.status != 0)
        #expect(noVersion.output.contains("no release archive at file://\(runner.download.path)/v9.9.9/session-conformance-9.9.9-linux-x86_64.tar.gz"), "\(noVersion.output)")
        #expect(noVersion.output.contains("build-from-source: true"), "\(noVersion.output)")
        let noPlatform = try runner.fetch(["RUNNER_ARCH": "ARM64"])
        #expect(noPlatform.status != 0 && noPlatform.output.contains("linux-aarch64.tar.gz"), "\(noPlatform.output)")
        try FileManager.default.removeItem(at: runner.download.appendingPathComponent("v\(SessionConformance.version)/SHA256SUMS"))
        let noSums = try runner.fetch()
        #expect(noSums.status != 0 && noSums.output.contains("cannot be verified"), "\(noSums.output)")
        let noRepository = try runner.fetch(["REPOSITORY": "", "SESSION_CONFORMANCE_DOWNLOAD_URL": ""])
        #expect(noRepository.status != 0 && noRepository.output.contains("repository input is empty"), "\(noRepository.output)")
        #expect(!runner.built, "a failed download never falls back to a build")
        #expect(runner.installed == nil && runner.pathLines.isEmpty)
    }

    @Test("build-from-source: true builds the action's checkout with package.sh instead of downloading")
    func buildsFromSourceOnlyWhenAsked() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.directory) }
        // The action's checkout: what package.sh reads (it writes .build/ into it, so a copy).
        let checkout = runner.directory.appendingPathComponent("action")
        let commands = checkout.appendingPathComponent("Sources/SessionConformanceCommands/Commands")
        try FileManager.default.createDirectory(at: commands, withIntermediateDirectories: true)
        for item in ["scripts", "Specs", "docs", "kits", "README.md", "CHANGELOG.md", "Package.swift",
                     "Sources/SessionConformanceCommands/Commands/SessionConformance.swift"] {
            try FileManager.default.copyItem(at: Paths.root.appendingPathComponent(item), to: checkout.appendingPathComponent(item))
        }
        let run = try runner.fetch(["BUILD_FROM_SOURCE": "true"], actionPath: checkout)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("session-conformance built from source"), "\(run.output)")
        let log = (try? String(contentsOf: runner.swiftLog, encoding: .utf8)) ?? ""
        #expect(log.contains("swift build -c release") && log.contains("--product session-conformance"), "\(log)")
        let path = try #require(runner.installed)
        #expect(path.hasSuffix("/session-conformance/\(SessionConformance.version)-source/linux-x86_64"))
        #expect(runner.pathLines == path + "\n")
    }

    @Test("action.yml passes the repository input and the action's ref, never github.action_repository, and caches by the resolved key")
    func actionPassesTheRepositoryInput() throws {
        let action = try ActionMetadata.load()
        let fetchSteps = action.steps.filter { $0["run"]?.string?.contains("scripts/action/fetch.sh") == true }
        #expect(fetchSteps.compactMap { $0["run"]?.string?.split(separator: " ").last.map(String.init) } == ["resolve", "install"])
        for step in fetchSteps {
            #expect(step["env"]?["REPOSITORY"]?.string == "${{ inputs.repository }}")
            #expect(step["env"]?["ACTION_REF"]?.string == "${{ github.action_ref }}")
            #expect(step["env"]?["BUILD_FROM_SOURCE"]?.string == "${{ inputs.build-from-source }}")
            #expect(step["env"]?["VERSION"]?.string == "${{ inputs.version }}")
        }
        let cache = try #require(action.steps.first { $0["uses"]?.string?.hasPrefix("actions/cache@") == true })
        #expect(cache["with"]?["key"]?.string == "${{ steps.resolve.outputs.cache-key }}")
        #expect(cache["with"]?["path"]?.string == "${{ steps.resolve.outputs.dir }}")
        let text = try String(contentsOf: Paths.root.appendingPathComponent("action.yml"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        #expect(!lines.contains { $0.contains("github.action_repository") || $0.contains("hashFiles(") },
                "empty in composite actions; hashFiles ignores the action's own files")
    }

    /// Constructs bash 3.2 (macOS runners' /bin/bash) does not have or treats otherwise, with why.
    static let bash4Only: [(pattern: String, why: String)] = [
        (#"\bmapfile\b|\breadarray\b"#, "mapfile/readarray are bash 4"),
        (#"\b(declare|local|typeset)\s+-[a-zA-Z]*A"#, "associative arrays are bash 4"),
        (#"\b(declare|local|typeset)\s+-[a-zA-Z]*n\b"#, "namerefs are bash 4.3"),
        (#"\$\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?(,,?|\^\^?)"#, "case modification ${var,,} ${var^^} is bash 4"),
        (#"\$\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?@[QEPAaUuLK]\}"#, "${var@Q} transformations are bash 4.4"),
        (#"&>>|\|&"#, "&>> and |& are bash 4"),
        (#";;&|;&\s*$"#, "case fall-through ;& ;;& is bash 4"),
        (#"\bcoproc\b"#, "coproc is bash 4"),
        (#"\[-[0-9]+\]\}"#, "negative subscripts are bash 4.3"),
        (#"\bshopt\s+-s\s+(globstar|lastpipe|autocd)"#, "globstar, lastpipe and autocd are bash 4"),
        (#"\bwait\s+-n\b"#, "wait -n is bash 4.3"),
        (#"\$EPOCH(SECONDS|REALTIME)|\$BASHPID"#, "EPOCHSECONDS and BASHPID are bash 4 and 5"),
        (#"\{[0-9a-z]+\.\.[0-9a-z]+\.\.[0-9]+\}"#, "brace sequences with a step are bash 4"),
    ]

    /// `"${name[@]}"` of an array that may be empty is an unbound variable under set -u in bash 3.2 (until
    /// 4.4): every expansion must be the guarded `${name[@]+"${name[@]}"}`.
    static func unguardedArrayExpansions(_ line: String) -> [String] {
        let guarded = try! NSRegularExpression(pattern: #"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\+"\$\{\1\[@\]\}"\}"#)
        let stripped = guarded.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "")
        let bare = try! NSRegularExpression(pattern: #"\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}"#)
        return bare.matches(in: stripped, range: NSRange(stripped.startIndex..., in: stripped)).compactMap {
            Range($0.range, in: stripped).map { String(stripped[$0]) }
        }
    }

    static func bashFindings(_ text: String, file: String) -> [String] {
        var findings: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = String(line)
            if code.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            for (pattern, why) in bash4Only where code.range(of: pattern, options: .regularExpression) != nil {
                findings.append("\(file):\(number + 1): \(why): \(code)")
            }
            for expansion in unguardedArrayExpansions(code) {
                findings.append("\(file):\(number + 1): \(expansion) of an empty array is unbound under set -u in bash 3.2; write ${a[@]+\"${a[@]}\"}: \(code)")
            }
        }
        return findings
    }

    @Test("the scripts a macOS runner may run use nothing bash 3.2 lacks (no mapfile, declare -A, ${var,,}, unguarded empty arrays)")
    func scriptsKeepToBash32() throws {
        let scripts = ["scripts/package.sh", "scripts/version.sh", "scripts/release.sh", "scripts/action/fetch.sh", "scripts/action/run.sh"]
        var findings: [String] = []
        for script in scripts {
            let text = try String(contentsOf: Paths.root.appendingPathComponent(script), encoding: .utf8)
            findings += Self.bashFindings(text, file: script)
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
        // The check finds what it looks for.
        let bad = """
            mapfile -t lines < file
            declare -A seen
            echo "${name,,}"
            run "${options[@]}"
            run ${options[@]+"${options[@]}"}
            # a comment may say "${options[@]}"
            """
        #expect(Self.bashFindings(bad, file: "bad").count == 4, "\(Self.bashFindings(bad, file: "bad"))")
    }

    @Test("run.sh with no optional input set runs under set -u (the empty option array of bash 3.2)")
    func runStepWithoutOptionalInputs() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Paths.root.appendingPathComponent(".build/debug/session-conformance").path),
                     "build the executables first (swift build --build-tests)")
        let directory = try ScriptShell.temporaryDirectory("action-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Paths.root.appendingPathComponent("Specs"), to: directory.appendingPathComponent("Specs"))
        let bin = Paths.root.appendingPathComponent(".build/debug")
        let outputs = directory.appendingPathComponent("github-output")
        let run = try ScriptShell.run([Paths.root.appendingPathComponent("scripts/action/run.sh").path], environment: [
            "PATH": bin.path + ":/usr/bin:/bin", "HOME": directory.path, "GITHUB_OUTPUT": outputs.path,
            // The run itself is not the point: an adapter that cannot start ends it at once (exit 3).
            "ADAPTER": "exit 4",
            "REPORTS": "conformance-report", "EXPECTED_FAILURES": "", "WORLD": "", "SHARD": "", "MERGE": "",
        ], in: directory)
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("unbound variable"), "\(run.output)")
        let recorded = ScriptShell.outputs(outputs)
        #expect(recorded["exit-code"] == "3", "\(run.output)")
        #expect(recorded["outcome"] == "adapter-not-started", "\(run.output)")
    }
}
