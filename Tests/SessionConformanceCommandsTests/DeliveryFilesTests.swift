import Foundation
import Testing

/// The Dockerfile and the release archive agree: what the image copies is the archive's layout and its
/// entry point is the archive's CLI, which finds the bundled specs. (No Docker daemon runs here: the image
/// itself is not built; .ci/run checks the release archive.)
@Suite("The release archive and the Dockerfile", .serialized)
struct DeliveryFilesTests {
    struct Dockerfile {
        var stages: [(image: String, name: String?)] = []
        var copies: [(from: String?, source: String, destination: String)] = []
        var runs: [String] = []
        /// The RUN instructions of each named stage.
        var stageRuns: [String: [String]] = [:]
        var entryPoint: [String] = []

        init(_ text: String) {
            // Backslash continuations join into one instruction.
            let joined = text.replacingOccurrences(of: "\\\n", with: " ")
            for raw in joined.split(separator: "\n") {
                let line = raw.trimmingCharacters(in: .whitespaces)
                guard !line.isEmpty, !line.hasPrefix("#") else { continue }
                let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                switch words[0].uppercased() {
                case "FROM": stages.append((words[1], words.count >= 4 ? words[3] : nil))
                case "COPY":
                    let from = words.first { $0.hasPrefix("--from=") }.map { String($0.dropFirst(7)) }
                    let paths = words.dropFirst().filter { !$0.hasPrefix("--") }
                    copies.append((from, paths.first ?? "", paths.last ?? ""))
                case "RUN":
                    runs.append(words.dropFirst().joined(separator: " "))
                    if let stage = stages.last?.name { stageRuns[stage, default: []].append(runs[runs.count - 1]) }
                case "ENTRYPOINT":
                    let json = line.dropFirst("ENTRYPOINT".count).trimmingCharacters(in: .whitespaces)
                    entryPoint = (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
                default: break
                }
            }
        }
    }

    static func dockerfile() throws -> Dockerfile {
        Dockerfile(try String(contentsOf: Paths.root.appendingPathComponent("Dockerfile"), encoding: .utf8))
    }

    /// Runs scripts/package.sh over the debug build into a temporary folder and unpacks the archive.
    static func packageDebugBuild(into directory: URL) throws -> URL {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Paths.root.appendingPathComponent("scripts/package.sh").path, directory.path]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SESSION_CONFORMANCE_SKIP_BUILD": "1",
            "SESSION_CONFORMANCE_BIN_DIR": Paths.root.appendingPathComponent(".build/debug").path,
        ]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "package.sh failed")
        let archive = URL(fileURLWithPath: printed.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(archive.lastPathComponent.hasPrefix("session-conformance-"))
        #expect(archive.lastPathComponent.hasSuffix(".tar.gz"))
        let unpacked = directory.appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xzf", archive.path, "-C", unpacked.path, "--strip-components=1"]
        try tar.run()
        tar.waitUntilExit()
        try #require(tar.terminationStatus == 0)
        return unpacked
    }

    @Test("the Dockerfile builds in a Swift image, ships on a slim Debian, and enters at session-conformance; the default target is the slim image")
    func dockerfileStages() throws {
        let file = try Self.dockerfile()
        try #require(file.stages.count == 6, "\(file.stages)")
        #expect(file.stages[0].name == "build")
        #expect(file.stages[1].image == "${BASE_IMAGE}" && file.stages[1].name == "slim")
        #expect(file.stages.last?.image == "slim" && file.stages.last?.name == nil, "the last stage, docker build's default, is the slim image")
        #expect(file.runs.contains { $0.contains("scripts/package.sh") })
        #expect(file.entryPoint == ["session-conformance"])
        let shipped = try #require(file.copies.first { $0.from == "build" })
        #expect(file.copies.filter { $0.from == "build" }.count == 1, "only the slim stage copies the archive; the variants build on it")
        #expect(file.runs.contains { $0.contains("ln -s \(shipped.destination)/session-conformance /usr/local/bin/session-conformance") })
    }

    /// The variants: the slim stage plus one runtime each, from Debian.
    static let variants = ["python": "python3", "node": "nodejs", "jvm": "default-jdk-headless"]

    @Test("the python, node and jvm variants are the slim image plus their runtime, and every target the docs name exists")
    func dockerfileVariants() throws {
        let file = try Self.dockerfile()
        for (target, package) in Self.variants {
            let stage = try #require(file.stages.first { $0.name == target }, "stage \(target)")
            #expect(stage.image == "slim", "\(target) builds on the slim stage")
            #expect(file.stageRuns[target, default: []].contains { $0.contains("apt-get install") && $0.hasSuffix(" \(package) && rm -rf /var/lib/apt/lists/*") },
                    "\(target) installs \(package): \(file.stageRuns[target, default: []])")
        }
        #expect(file.stageRuns["slim", default: []].allSatisfy { !$0.contains("apt-get") }, "the slim image installs nothing")
        // `--target NAME` and the image tags `:VERSION-NAME` in the README, docs/ci.md and the Dockerfile's own usage lines.
        let stages = Set(file.stages.compactMap { $0.name })
        var named: [String] = []
        for path in ["README.md", "docs/ci.md", "Dockerfile"] {
            let text = try String(contentsOf: Paths.root.appendingPathComponent(path), encoding: .utf8)
            named += ReleaseFilesTests.matches(#"--target ([a-z]+)"#, in: text).map { $0[1] }
            named += ReleaseFilesTests.matches(#"session-conformance:[0-9]+\.[0-9]+\.[0-9]+-([a-z]+)"#, in: text).map { $0[1] }
            named += ReleaseFilesTests.matches(#"`:[0-9]+\.[0-9]+\.[0-9]+-([a-z]+)`"#, in: text).map { $0[1] }
        }
        #expect(Set(named) == Set(Self.variants.keys), "named \(Set(named)); stages \(stages)")
        #expect(Set(named).isSubset(of: stages))
        let readme = try String(contentsOf: Paths.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("no Python, no Node, no JVM"), "README says what the slim image lacks")
    }

    @Test("the archive holds what the image copies: the CLI at its root, the reference adapter and Specs/; the CLI finds them")
    func archiveLayout() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Paths.root.appendingPathComponent(".build/debug/session-conformance").path),
                     "build the executables first (swift build --build-tests)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let unpacked = try Self.packageDebugBuild(into: directory)
        let entryPoint = try #require(try Self.dockerfile().entryPoint.first)
        for executable in [entryPoint, "session-conformance-reference-adapter"] {
            #expect(FileManager.default.isExecutableFile(atPath: unpacked.appendingPathComponent(executable).path), "\(executable)")
        }
        #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("Specs/requirements.yaml").path))
        // The kits as committed, installable from the archive as the tutorials install them from a checkout.
        for file in ["kits/python/pyproject.toml", "kits/javascript/package.json", "kits/jvm/build.sh"] {
            #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent(file).path), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("kits/jvm/build").path), "no build output")

        // From a folder with no Specs/, through a symlink as in the image, the CLI lints its bundled specs.
        let elsewhere = directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: unpacked.appendingPathComponent(entryPoint))
        let lint = Process()
        lint.executableURL = link
        lint.arguments = ["lint"]
        lint.currentDirectoryURL = elsewhere
        let pipe = Pipe()
        lint.standardOutput = pipe
        lint.standardError = pipe
        try lint.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lint.waitUntilExit()
        #expect(lint.terminationStatus == 0, "\(output)")
    }
}
