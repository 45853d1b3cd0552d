import ConformanceReports

/// `session-conformance diff OLD.json NEW.json`: regressions, fixes and newly covered requirements; across spec
/// versions, which worse verdicts the suite made.
enum DiffCommand: Command {
    static let name = "diff"
    static let summary = "Compare two JSON reports: regressions, fixes, newly covered requirements."
    static let usage = "session-conformance diff OLD.json NEW.json"
    static let discussion = """
        Compares the requirement statuses of two JSON reports (written by 'run --report json'). A regression is
        a checked requirement whose status got worse (pass to warn, known, fail or error; warn to fail or
        error; pass or warn to 'untested (inconclusive)', left untested because its cases were inconclusive,
        which ranks between warn and fail); a fix is one that got better; newly covered requirements were skipped, untested or absent
        before and are checked now; no-longer-covered ones the other way round. Changed certification
        verdicts and case statuses are listed too. Exits 1 when there is a regression: the CI gate for a team
        porting the design (compare a pull request's report with the main branch's).
        Reports made under different spec versions (CHANGELOG.md) have each worse verdict attributed: to the
        suite when it comes from a case that is new, removed or changed (its definition digest), or from a
        requirement reworded or tightened, listed under 'suite changes' and not failing; to the client when the
        case is defined alike in both. A report from before spec versions reads as version 'unknown', and its
        changed verdicts count as regressions.
        """
    static let options: [OptionSpec] = []

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard arguments.positionals.count == 2 else {
            throw UsageError("diff takes two reports, OLD.json and NEW.json; got \(arguments.positionals.count)")
        }
        let (oldPath, newPath) = (arguments.positionals[0], arguments.positionals[1])
        let old: ComplianceReport, new: ComplianceReport
        do {
            old = try JSONReportWriter.read(path: oldPath)
            new = try JSONReportWriter.read(path: newPath)
        } catch {
            console.err(ConsoleText.lines("error: \(error)") + "\n")
            return .specOrUsageError
        }
        let diff = ReportDiff.compare(old: old, new: new)
        console.out(diff.rendered(old: oldPath, new: newPath))
        return diff.hasRegressions ? .conformanceFailure : .success
    }
}
