import ConformanceRunner
import Foundation
import ReferenceAdapter
import SpecModel

/// `session-conformance run`: play every acceptance case against a client and report per requirement.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run the acceptance cases against a client and report per requirement."
    static let usage = "session-conformance run [--adapter COMMAND] [--connection in-process|process] [--case ID]... [--filter PATTERN]... [--seed N] [--timeout SECONDS] [--jobs N]"
    static let discussion = """
        Without --adapter, the built-in reference implementation (SessionKit) is certified, in-process by
        default or as its own process with --connection process. --adapter runs an external client: the
        command line of its adapter, which speaks protocol v1 on stdin/stdout (docs/adapter-protocol.md).
        The runner plays the whole world: servers, storage, clock, network and process death. The same seed
        and adapter give the same trace. A crash, a hang past --timeout, or broken protocol makes the case
        an 'error' verdict with the adapter's stderr tail; the run goes on.
        """
    static let options = [
        OptionSpec(name: "adapter", kind: .value(placeholder: "COMMAND"), help: "The adapter's command line (run with /bin/sh -c)."),
        OptionSpec(name: "connection", kind: .value(placeholder: "KIND"),
                   help: "For the reference: in-process (default) or process."),
        OptionSpec(name: "case", kind: .value(placeholder: "ID"), help: "Run only this case (repeatable)."),
        OptionSpec(name: "filter", kind: .value(placeholder: "PATTERN"),
                   help: "Run only cases whose id matches; a trailing * matches a prefix (repeatable)."),
        OptionSpec(name: "seed", kind: .value(placeholder: "N"), help: "The world's seed (default 1)."),
        OptionSpec(name: "timeout", kind: .value(placeholder: "SECONDS"),
                   help: "How long to wait for an adapter message before the case errors (default 10)."),
        OptionSpec(name: "jobs", kind: .value(placeholder: "N"), help: "Cases run in parallel (default 1)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs)."),
        OptionSpec(name: "verbose", kind: .flag, help: "List every requirement, informative ones included."),
    ]

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", hint: "run takes options only")
        }
        let seed = try number(arguments, "seed", default: 1, as: UInt64.self)
        let jobs = try number(arguments, "jobs", default: 1, as: Int.self)
        let timeout = try number(arguments, "timeout", default: 10, as: Int.self)
        guard jobs >= 1 else { throw UsageError("--jobs must be at least 1") }
        guard timeout >= 1 else { throw UsageError("--timeout must be at least 1 second") }
        let specRoot = arguments.value("spec-root") ?? "Specs"
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot)
        guard lint.errorCount == 0 else {
            console.err(lint.rendered())
            console.err("run: the specs have \(lint.errorCount) error\(lint.errorCount == 1 ? "" : "s"); fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        let launcher = try makeLauncher(arguments, timeout: timeout)
        let options = RunOptions(seed: seed, jobs: jobs, filters: (arguments.values["case"] ?? []) + (arguments.values["filter"] ?? []))
        let runner = SuiteRunner(bundle: lint.bundle, launcher: launcher)
        if !options.filters.isEmpty && runner.selectedCases(options).isEmpty {
            throw UsageError("no case matches \(options.filters.map { "'\($0)'" }.joined(separator: ", "))")
        }
        let showProgress = console.isTerminal
        let result = runner.run(options) { done, total, outcome in
            if showProgress { console.err("\r\u{1B}[K[\(done)/\(total)] \(outcome.status.rawValue) \(outcome.caseID)") }
        }
        if showProgress { console.err("\r\u{1B}[K") }
        let command = "session-conformance run" + (arguments.value("adapter").map { " --adapter '\($0)'" } ?? "")
        console.out(RunSummary(result: result, command: command).rendered(verbose: arguments.flags.contains("verbose")))
        return result.mustRequirementsPass ? .success : .conformanceFailure
    }

    private static func makeLauncher(_ arguments: ParsedArguments, timeout: Int) throws -> any AdapterLauncher {
        if let command = arguments.value("adapter") {
            if arguments.value("connection") != nil {
                throw UsageError("--connection applies to the built-in reference only", hint: "drop it when you pass --adapter")
            }
            return ProcessAdapterLauncher(commandLine: command, timeout: .seconds(timeout))
        }
        switch arguments.value("connection") ?? "in-process" {
        case "in-process":
            return InProcessLauncher(description: "SessionKit (in-process)") { ReferenceClientAdapter() }
        case "process":
            return ProcessAdapterLauncher(commandLine: ReferenceAdapterExecutable.commandLine, timeout: .seconds(timeout))
        case let other:
            throw UsageError("unknown connection '\(other)'", hint: "use in-process or process")
        }
    }

    private static func number<T: FixedWidthInteger>(_ arguments: ParsedArguments, _ name: String, default fallback: T,
                                                     as type: T.Type) throws -> T {
        guard let text = arguments.value(name) else { return fallback }
        guard let value = T(text) else { throw UsageError("--\(name) takes a whole number, not '\(text)'") }
        return value
    }
}

/// Where the reference adapter executable is: beside this executable, as SwiftPM builds them.
enum ReferenceAdapterExecutable {
    static var commandLine: String {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let sibling = executable.deletingLastPathComponent().appendingPathComponent("session-conformance-reference-adapter")
        return "'" + sibling.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
