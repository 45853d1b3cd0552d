import Foundation
import SessionConformanceCommands
import Testing

/// .github/workflows/ci.yml cannot run here: what it runs is checked instead. Every repository file a step names
/// exists, every `session-conformance` subcommand and option it passes is one the tool has, and it builds in the
/// release's Swift image.
@Suite("The CI workflow")
struct CIWorkflowTests {
    static let workflow = (try? String(contentsOf: Paths.root.appendingPathComponent(".github/workflows/ci.yml"), encoding: .utf8)) ?? ""

    /// The shell lines of every `run:` step, a block's lines one by one.
    static func runLines(_ text: String) -> [String] {
        var lines: [String] = []
        var blockIndent: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = blockIndent {
                if trimmed.isEmpty { continue }
                if indent > block { lines.append(trimmed); continue }
                blockIndent = nil
            }
            let withoutDash = trimmed.hasPrefix("- ") ? String(trimmed.dropFirst(2)) : trimmed
            guard withoutDash.hasPrefix("run:") else { continue }
            let command = withoutDash.dropFirst("run:".count).trimmingCharacters(in: .whitespaces)
            if command == "|" { blockIndent = indent } else { lines.append(command) }
        }
        return lines
    }

    /// The words of a shell line, quotes removed (the workflow's lines quote simply).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == " " {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    @Test("the workflow runs on pull requests, on Linux in the release's image and on macOS 15, the oldest the package declares")
    func runsWhereItSays() throws {
        #expect(Self.workflow.contains("pull_request:"))
        let release = try String(contentsOf: Paths.root.appendingPathComponent(".github/workflows/release.yml"), encoding: .utf8)
        let image = try #require(release.split(separator: "\n").first { $0.contains("SWIFT_IMAGE: ") }?.split(separator: " ").last)
        #expect(Self.workflow.contains("container: \(image)"))
        #expect(Self.workflow.contains("SWIFT_IMAGE: \(image)"))
        #expect(Self.workflow.contains("runner: [macos-15]"))
        let manifest = try String(contentsOf: Paths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains("platforms: [.macOS(.v15), .iOS(.v18)]"))
        #expect(Self.workflow.contains("swift build --build-tests -Xswiftc -warnings-as-errors"))
    }

    @Test("every file a step names exists in the repository")
    func namedFilesExist() {
        let lines = Self.runLines(Self.workflow)
        #expect(lines.count >= 10, "\(lines)")
        for word in lines.flatMap(Self.words) {
            let path = word.split(separator: "=").last.map(String.init) ?? word
            guard ["scripts/", "Examples/", "Specs/", "Tests/", "docs/", ".ci/"].contains(where: path.hasPrefix) else { continue }
            #expect(FileManager.default.fileExists(atPath: Paths.root.appendingPathComponent(path).path), "\(path)")
        }
    }

    @Test("every session-conformance subcommand and option a step passes is one the tool has")
    func commandsExist() {
        var checked = 0
        for line in Self.runLines(Self.workflow) {
            let words = Self.words(line)
            guard let tool = words.firstIndex(where: { $0.hasSuffix("/session-conformance") }), tool + 1 < words.count else { continue }
            let subcommand = words[tool + 1]
            let console = BufferConsole()
            let code = SessionConformance.main(arguments: [subcommand, "--help"], console: console)
            #expect(code == .success, "session-conformance \(subcommand) is a command")
            for option in words[(tool + 2)...] where option.hasPrefix("--") {
                #expect(console.stdout.contains("  " + option + " ") || console.stdout.contains("  " + option + "\n"),
                        "session-conformance \(subcommand) has \(option)")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}
