import ConformanceReports

/// `session-conformance merge A.json B.json ...`: join shard reports into the report of the whole run.
enum MergeCommand: Command {
    static let name = "merge"
    static let summary = "Join the JSON reports of the shards of a run into one report."
    static let usage = "session-conformance merge SHARD.json... [--report FORMAT[=PATH]]..."
    static let discussion = """
        Reads the JSON reports of all N shards of one run ('run --shard I/N --report json=...', same suite,
        spec, client, seed and options) and joins them into the report the unsharded run gives: the cases in
        spec order, and every requirement status, piece of evidence, certification verdict and expected
        failure decided again over all of them. Writes it in each --report format (the same formats, default
        paths and path rules as 'run': a regular file, a symbolic link to one, or '-' for standard output);
        without --report, prints the JSON report on standard output. A report larger than 64 MiB is refused. Prints the
        summary on standard error and exits like 'run' would have: 1 when a MUST requirement failed or is
        untested, a case errored (whatever the expected failures say), or an expected failure now passes
        (unless the shards ran with --allow-unexpected-passes). A missing,
        repeated or foreign shard is an error (exit 2).

        The JSON reports of 'explore --shard I/N' shards merge the same way; each distinct failure (an oracle
        and the requirements it charges) is kept once, with the lowest run that showed it.
        """
    static let options = [
        OptionSpec(name: "report", kind: .value(placeholder: "FORMAT[=PATH]"),
                   help: "Write the merged report: json, junit, markdown, html, tap or badge (repeatable)."),
    ]

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else {
            throw UsageError("merge needs the JSON reports of the shards", hint: "session-conformance merge shard-1.json shard-2.json")
        }
        let requests = try RunCommand.reportRequests(arguments)
        var reports: [(file: String, report: ComplianceReport)] = []
        do {
            for path in arguments.positionals {
                reports.append((path, try JSONReportWriter.read(path: path)))
            }
        } catch {
            console.err(ConsoleText.lines("error: \(error)") + "\n")
            return .specOrUsageError
        }
        let merged: ComplianceReport
        do {
            merged = try ReportMerge.merge(reports)
        } catch {
            console.err(ConsoleText.lines("merge: \(error)") + "\n")
            return .specOrUsageError
        }
        console.err(TextSummaryWriter.render(merged, width: ConsoleWidth.current()))
        if requests.isEmpty {
            guard OutputFile.write(JSONReportWriter.render(merged), what: "the json report", to: "-", console: console) else {
                return .specOrUsageError
            }
        } else if let failure = try RunCommand.writeReports(merged, requests, console: console) {
            return failure
        }
        if merged.run.startupFailure != nil { return .adapterNotStarted }
        return merged.gate.passed ? .success : .conformanceFailure
    }
}
