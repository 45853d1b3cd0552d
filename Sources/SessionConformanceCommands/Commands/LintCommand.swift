import ConformanceRunner
import SpecModel

/// `session-conformance lint [PATH...]`: load and cross-check the specs.
enum LintCommand: Command {
    static let name = "lint"
    static let summary = "Load and cross-check the spec files."
    static let usage = "session-conformance lint [PATH...] [--spec-root DIR] [--world FILE] [--quiet]"
    static let discussion = """
        PATH is a spec folder or single spec files (default: the spec root). A folder is checked as a whole
        spec: every reference resolves, every state is reachable, every transition and invariant is cited by a
        requirement, and documents marked 'coverage: complete' are quoted in full. Single files are checked
        against the spec root's requirements and state machine. Errors are printed like a compiler's, all of
        them, then a summary: requirements by level, states, transitions, cases, world profiles, and what has
        no case yet. Every world profile in the spec's worlds/ folder is checked with the spec; --world FILE
        checks a profile kept elsewhere too (the file 'run --world FILE' would use).
        """
    static let options = [
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"),
                   help: "The spec folder single files are checked against (default: Specs, else the Specs beside the executable)."),
        OptionSpec(name: "world", kind: .value(placeholder: "FILE"), help: "Check this world profile file too."),
        OptionSpec(name: "quiet", kind: .flag, help: "Print errors only, no summary."),
    ]

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        let result = SpecLinter.lint(paths: arguments.positionals, specRoot: try DefaultSpecRoot.chosen(arguments),
                                       checkedInvariants: Oracles.checkedInvariants)
        var rendered = result.rendered()
        var errorCount = result.errorCount
        var errorFiles = Set(result.diagnostics.filter { $0.severity == .error }.map(\.location.file))
        if let world = arguments.value("world") {
            do {
                _ = try WorldArgument.load(file: world)
            } catch {
                rendered += error.rendered
                errorCount += error.errorCount
                errorFiles.insert(world)
            }
        }
        if !rendered.isEmpty { console.err(rendered) }
        if !arguments.flags.contains("quiet") {
            console.out(result.summary.rendered())
        }
        guard errorCount == 0 else {
            let files = errorFiles.count
            console.err("lint: \(errorCount) error\(errorCount == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")\n")
            return .specOrUsageError
        }
        if !arguments.flags.contains("quiet") {
            console.out("lint: clean (\(result.load.files.count) spec files)\n")
        }
        return .success
    }
}
