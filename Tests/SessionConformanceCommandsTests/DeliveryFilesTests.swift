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
                case "RUN": runs.append(words.dropFirst().joined(separator: " "))
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

    @Test("the Dockerfile builds in a Swift image, ships on a slim Debian, and enters at session-conformance")
    func dockerfileStages() throws {
        let file = try Self.dockerfile()
        try #require(file.stages.count == 2, "\(file.stages)")
        #expect(file.stages[0].name == "build")
        #expect(file.runs.contains { $0.contains("scripts/package.sh") })
        #expect(file.entryPoint == ["session-conformance"])
        let shipped = try #require(file.copies.first { $0.from == "build" })
        #expect(file.runs.contains { $0.contains("ln -s \(shipped.destination)/session-conformance /usr/local/bin/session-conformance") })
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
