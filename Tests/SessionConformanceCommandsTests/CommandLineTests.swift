import Foundation
import SessionConformanceCommands
import POSIXSync
import Testing

/// Collects what a command prints.
final class BufferConsole: Console {
    private let buffers = Locked<(out: String, err: String)>(("", ""))
    let isTerminal: Bool
    let colors: Bool

    init(isTerminal: Bool = false, colors: Bool = false) {
        self.isTerminal = isTerminal
        self.colors = colors
    }

    func out(_ text: String) { buffers.withLock { $0.out += text } }
    func err(_ text: String) { buffers.withLock { $0.err += text } }

    var stdout: String { buffers.withLock { $0.out } }
    var stderr: String { buffers.withLock { $0.err } }
}

enum Paths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let specs = root.appendingPathComponent("Specs").path
    static let malformed = root.appendingPathComponent("Tests/SpecModelTests/Fixtures/malformed")

    static func malformedFixtures() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: malformed.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { malformed.appendingPathComponent($0).path }
    }
}

func run(_ arguments: String...) -> (code: ExitCode, console: BufferConsole) {
    run(arguments)
}

func run(_ arguments: [String]) -> (code: ExitCode, console: BufferConsole) {
    let console = BufferConsole()
    let code = SessionConformance.main(arguments: arguments, console: console)
    return (code, console)
}

@Suite("The command line")
struct CommandLineTests {
    @Test("--help lists the commands and documents the exit codes")
    func helpDocumentsExitCodes() {
        let (code, console) = run("--help")
        #expect(code == .success)
        #expect(console.stdout.contains("lint"))
        for line in ["0  success", "1  conformance failure", "2  spec or usage error"] {
            #expect(console.stdout.contains(line))
        }
    }

    @Test("every command has its own --help with usage and exit codes")
    func commandHelp() {
        let (code, console) = run("lint", "--help")
        #expect(code == .success)
        #expect(console.stdout.contains("USAGE: session-conformance lint [PATH...]"))
        #expect(console.stdout.contains("--spec-root DIR"))
        #expect(console.stdout.contains("EXIT CODES:"))
    }

    @Test("no command is a usage error that prints the overview")
    func noCommand() {
        let (code, console) = run()
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("USAGE: session-conformance <command>"))
    }

    @Test("an unknown command is a usage error with a suggestion")
    func unknownCommand() {
        let (code, console) = run("lnt")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: unknown command 'lnt' (did you mean 'lint'?)\n"))
    }

    @Test("an unknown flag is a usage error with a hint and the usage line")
    func unknownFlag() {
        let (code, console) = run("lint", "--qiet")
        #expect(code == .specOrUsageError)
        #expect(console.stderr == """
            error: unknown option '--qiet'
            hint: did you mean '--quiet'?
            usage: session-conformance lint [PATH...] [--spec-root DIR] [--world FILE] [--quiet]
            Run 'session-conformance lint --help' for more.

            """)
    }

    @Test("an option missing its value is a usage error")
    func missingValue() {
        let (code, console) = run("lint", "--spec-root")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: option '--spec-root' needs a value (DIR)\n"))
    }

    @Test("lint on the real specs exits 0 and prints the summary")
    func lintRealSpecs() {
        let (code, console) = run("lint", Paths.specs)
        #expect(code == .success)
        #expect(console.stderr == "")
        #expect(console.stdout.contains("requirements: "))
        #expect(console.stdout.contains("state machine: 5 states"))
        #expect(console.stdout.contains("lint: clean"))
    }

    @Test("lint on a missing path is an error naming the path")
    func missingPath() {
        let (code, console) = run("lint", "/nonexistent/specs", "--quiet")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("/nonexistent/specs:1:1: error: no such file or folder\n"))
    }

    @Test("each malformed fixture exits 2 and starts with its file, line and column",
          arguments: Paths.malformedFixtures())
    func malformedFixtureExits2(path: String) {
        let (code, console) = run("lint", path, "--spec-root", Paths.specs, "--quiet")
        #expect(code == .specOrUsageError)
        let firstLine = console.stderr.prefix { $0 != "\n" }
        let position = firstLine.split(separator: ":", maxSplits: 3).map(String.init)
        #expect(position.count == 4)
        #expect(position.first == path)
        #expect(Int(position.count > 1 ? position[1] : "") != nil)
        #expect(Int(position.count > 2 ? position[2] : "") != nil)
        #expect(console.stderr.contains("\n^") || console.stderr.contains(" ^") || console.stderr.contains("\t^"))
        #expect(console.stderr.hasSuffix(" file\n") || console.stderr.hasSuffix(" files\n"))
    }
}
