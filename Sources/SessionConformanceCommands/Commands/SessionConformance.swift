import Foundation
import ConformanceReports
import SpecModel

/// The `session-conformance` command line: dispatches to a subcommand and maps errors to exit codes.
public enum SessionConformance {
    /// The tool's version, its one source: `--version` prints it and reports record it (`suite.version`);
    /// scripts/version.sh reads it for the archive's name and the Action; the release workflow refuses a tag
    /// other than `v` + this; CHANGELOG.md's newest release names it (docs/ci.md, Releases).
    public static let version = "0.1.0"

    static let commands: [any Command.Type] = [LintCommand.self, ListCommand.self, RunCommand.self, DiffCommand.self, MergeCommand.self, BenchCommand.self, MutantsCommand.self, ExploreCommand.self, DoctorCommand.self]

    static var help: String {
        var text = """
            OVERVIEW: Certify a mobile client's session and token lifecycle against the design's requirements.

            USAGE: session-conformance <command> [options]

            COMMANDS:

            """
        for command in commands {
            text += "  " + command.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += """

            Run 'session-conformance <command> --help' for a command's options.
            --version prints the suite version and the spec version (CHANGELOG.md lists each spec version's changes).

            """
        return text + "\n" + exitCodeHelp
    }

    /// How the executable was started, from `argv[0]`: the program name the printed commands use.
    public static func programName(argv0: String, workingDirectory: String = FileManager.default.currentDirectoryPath) -> String {
        Invocation.name(argv0: argv0, workingDirectory: workingDirectory)
    }

    /// Runs one command line (without the program name) and returns the exit code. `program` starts the
    /// commands the suite prints to be run again (reproduce and replay lines).
    public static func main(arguments: [String], console: any Console, program: String = "session-conformance") -> ExitCode {
        guard let first = arguments.first else {
            console.err(help)
            return .specOrUsageError
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1, let command = lookup(arguments[1]) {
                console.out(command.help)
            } else {
                console.out(help)
            }
            return .success
        case "--version":
            console.out("session-conformance \(version), spec \(specVersion(specRoot: DefaultSpecRoot.path))\n")
            return .success
        default:
            break
        }
        guard let command = lookup(first) else {
            let hint = Suggestion.closest(to: first, among: commands.map { $0.name }).map { " (did you mean '\($0)'?)" } ?? ""
            console.err("error: unknown command '\(first)'\(hint)\nRun '\(program) --help' for the commands.\n")
            return .specOrUsageError
        }
        do {
            var parsed = try CommandLineParser.parse(Array(arguments.dropFirst()), options: command.options)
            parsed.program = program
            if parsed.flags.contains("help") {
                console.out(command.help)
                return .success
            }
            return try command.run(parsed, console: console)
        } catch let error as UsageError {
            var text = "error: \(error.message)\n"
            if let hint = error.hint { text += "hint: \(hint)\n" }
            text += "usage: \(command.usage)\nRun '\(program) \(command.name) --help' for more.\n"
            // A message may quote a report or a client: no control character of theirs reaches the terminal.
            console.err(ConsoleText.lines(text))
            return .specOrUsageError
        } catch {
            console.err(ConsoleText.lines("error: \(error)") + "\n")
            return .specOrUsageError
        }
    }

    /// The version of the spec `run` would use, for `--version`: `3.0`, or why there is none.
    static func specVersion(specRoot: String) -> String {
        let file = (specRoot as NSString).appendingPathComponent("requirements.yaml")
        let result = SpecLoader.load(files: [file])
        if let version = result.bundle.specVersion { return "\(version) (\(WorkingDirectory.relative(file)))" }
        return "version unknown (\(WorkingDirectory.relative(file)) gives none; 'session-conformance lint' says why)"
    }

    static func lookup(_ name: String) -> (any Command.Type)? {
        commands.first { $0.name == name }
    }
}
