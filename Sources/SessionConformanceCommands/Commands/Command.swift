/// A subcommand: its help text, its options, and a thin `run` over library code.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static var discussion: String { get }
    static var options: [OptionSpec] { get }
    /// The full `--help` text; provided by the extension below.
    static var help: String { get }
    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode
}

extension Command {
    static var help: String {
        var text = "OVERVIEW: \(summary)\n\nUSAGE: \(usage)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nOPTIONS:\n"
        for option in options + [CommandLineParser.helpOption] {
            var spelling = option.short.map { "-\($0), " } ?? ""
            switch option.kind {
            case .flag: spelling += "--\(option.name)"
            case .value(let placeholder): spelling += "--\(option.name) \(placeholder)"
            }
            text += "  " + spelling.padding(toLength: max(24, spelling.count + 2), withPad: " ", startingAt: 0)
                + option.help + "\n"
        }
        return text + "\n" + exitCodeHelp
    }
}

let exitCodeHelp = """
    EXIT CODES:
      0  success: specs clean, or every MUST requirement passed (or failed as expected)
      1  conformance failure: the client under test failed a MUST requirement, a case errored (always,
         whatever --expected-failures says), a MUST is untested (no case, or only inconclusive ones), an
         expected failure now passes (unless --allow-unexpected-passes), 'diff' found a regression, or
         'doctor' found a problem with the adapter
      2  spec or usage error: the specs have errors, or the command line was wrong
      3  the adapter could not be started or spoke no protocol: its first launch, before any case, gave no
         valid 'hello' (command not found, not executable, exited or crashed at start, no 'hello' within
         --timeout, a first line that is not a protocol v1 'hello'); no case ran. A crash or protocol
         error later, in a case, is that case's 'error' verdict: exit 1
      130, 143, 129, 131  'run' was stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT; the reports written are marked
                 incomplete

    """
