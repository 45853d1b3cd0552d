import ConformanceProtocol
import ConformanceRunner
import Foundation
import Mutants
import SimulatedWorld
import SpecModel

/// `session-conformance mutants`: the suite against every known-bad variant (docs/known-bad.md), in-process;
/// prints the kill matrix and the score. A suite is worth what it rejects.
enum MutantsCommand: Command {
    static let name = "mutants"
    static let summary = "Run the suite against every known-bad variant and print the kill matrix and score."
    static let usage = "session-conformance mutants [--list] [--variant NAME]... [--jobs N] [--seed N] [--explore RUNS [--strategy guided|random] [--connection in-process|process]] [--spec-root DIR] [--world FILE|NAME] [--verbose]"
    static let discussion = """
        Plays every acceptance case against each known-bad client, in-process: the reference (SessionKit) with
        exactly one defect each, and ports of the naive iOS, Android and Flutter code of the platform guide
        (docs/known-bad.md). First the unmodified reference runs as the control and must pass everything.
        A variant is killed when the run charges a finding to at least one requirement (a MUST fails, or a
        SHOULD warns). For each variant the matrix shows whether it was killed, the requirements it was
        expected to fail and killed by, and the others it failed ('!' marks one its entry does not document).
        The score is killed / total. Exit 0 only when the control passes, every variant is killed, and every
        variant fails at least its expected requirements. --list prints the variants, their kind and defect,
        and runs nothing; --variant NAME takes a name from it.

        --explore RUNS adds a column: the first generated run of 'session-conformance explore' (seed 1, or
        --seed) in which an oracle charges a finding to one of the variant's expected requirements, searching
        at most RUNS runs (docs/exploration.md). Then the exit is 0 only if every variant is also found so.
        With --connection process the column explores each variant through the reference adapter's process
        (session-conformance-reference-adapter --reset --variant NAME), as a team's adapter is explored: most
        kills reset the process, and a failure found so is confirmed with real kills.
        """
    static let options = [
        OptionSpec(name: "variant", kind: .value(placeholder: "NAME"), help: "Run only this variant (repeatable)."),
        OptionSpec(name: "jobs", kind: .value(placeholder: "N"), help: "Cases run in parallel within each run (default 1)."),
        OptionSpec(name: "strategy", kind: .value(placeholder: "guided|random"), help: "With --explore: how runs are chosen (default guided)."),
        OptionSpec(name: "seed", kind: .value(placeholder: "N"), help: "The world's seed (default 1)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
        OptionSpec(name: "world", kind: .value(placeholder: "FILE|NAME"),
                   help: "The world profile every variant plays: a file, or one of the spec's worlds (default: json-v1)."),
        OptionSpec(name: "explore", kind: .value(placeholder: "RUNS"),
                   help: "Also search generated runs for each variant, at most RUNS of them (the explore column)."),
        OptionSpec(name: "connection", kind: .value(placeholder: "in-process|process"),
                   help: "With --explore: explore in-process (default) or through the reference adapter's process."),
        OptionSpec(name: "verbose", kind: .flag, help: "Also print each finding of each variant."),
        OptionSpec(name: "list", kind: .flag, help: "List the variants and their defects, and run nothing."),
    ]

    /// One row of the matrix.
    struct Row {
        let mutant: Mutant
        let failed: Set<String>
        let result: RunResult
        /// With `--explore`: the first generated run an oracle of an expected requirement failed, or nil.
        var explored: ExploreFinding?
        /// With `--explore`: why the variant's client could not be started to explore it (its adapter process).
        var exploreError: String?

        var killed: Bool { !failed.isEmpty }
        var killedBy: [String] { mutant.expected.filter(failed.contains) }
        var expectedMet: Bool { killedBy.count == mutant.expected.count }
        var others: [String] { failed.subtracting(mutant.expected).sorted() }
        var errored: [String] { cases(.error) }
        var inconclusive: [String] { cases(.inconclusive) }

        private func cases(_ status: CaseStatus) -> [String] {
            result.outcomes.filter { $0.status == status }.map(\.caseID)
        }
    }

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", hint: "mutants takes options only")
        }
        if arguments.flags.contains("list") {
            console.out(MutantRegistry.all.map { "\($0.name.padding(toLength: 40, withPad: " ", startingAt: 0)) \($0.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \($0.defect)" }
                .joined(separator: "\n") + "\n")
            return .success
        }
        let jobs = try number(arguments, "jobs", default: 1)
        guard jobs >= 1 else { throw UsageError("--jobs must be at least 1") }
        let seed = try number(arguments, "seed", default: 1)
        let exploreRuns = try arguments.value("explore").map { _ in try number(arguments, "explore", default: 0) }
        if let exploreRuns, exploreRuns < 1 { throw UsageError("--explore must be at least 1") }
        let strategy = try ExploreCommand.strategy(arguments)
        let throughProcess: Bool
        switch arguments.value("connection") {
        case nil, "in-process": throughProcess = false
        case "process": throughProcess = true
        case let other?: throw UsageError("--connection takes in-process or process, not '\(other)'")
        }
        let names = arguments.values["variant"] ?? []
        var mutants = MutantRegistry.all
        if !names.isEmpty {
            for name in names where MutantRegistry.named(name) == nil {
                let hint = Suggestion.closest(to: name, among: MutantRegistry.all.map(\.name)).map { "did you mean '\($0)'?" }
                    ?? "'session-conformance mutants --list' lists them"
                throw UsageError("unknown variant '\(name)'", hint: hint)
            }
            mutants = mutants.filter { names.contains($0.name) }
        }
        let specRoot = try DefaultSpecRoot.chosen(arguments)
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0 else {
            console.err(lint.rendered())
            console.err("mutants: the specs have \(lint.errorCount) error\(lint.errorCount == 1 ? "" : "s"); fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        let world: WorldProfile?
        do { world = try WorldArgument.option(arguments, bundle: lint.bundle, command: "mutants", console: console) } catch {
            return .specOrUsageError
        }
        let options = RunOptions(seed: UInt64(seed), jobs: jobs, world: world)
        func suite(_ description: String, _ make: @escaping @Sendable () -> any InProcessClient) -> RunResult {
            if console.isTerminal { console.err("\r\u{1B}[K\(description)") }
            return SuiteRunner(bundle: lint.bundle, launcher: InProcessLauncher(description: description, make: make)).run(options)
        }

        let control = suite("reference (control)", MutantRegistry.reference)
        let controlFailures = failedRequirements(control)
        // Judged on its cases: a spec folder of a few cases (a shrunk exploration's) leaves most requirements
        // untested, which says nothing against the reference.
        let controlNotPassing = control.outcomes.filter { $0.status != .pass && $0.status != .skipped }.map(\.caseID)
        let controlPasses = controlFailures.isEmpty && controlNotPassing.isEmpty
        let machine = exploreRuns == nil ? nil : lint.bundle.stateMachine
        let rows = mutants.map { mutant in
            let result = suite(mutant.name, mutant.make)
            var row = Row(mutant: mutant, failed: failedRequirements(result), result: result)
            if let exploreRuns, let machine {
                if console.isTerminal { console.err("\r\u{1B}[K\(mutant.name): exploring") }
                let launcher: any AdapterLauncher = throughProcess
                    ? ProcessAdapterLauncher(commandLine: ReferenceAdapterExecutable.commandLine + " --reset --variant \(mutant.name)", timeout: .seconds(10))
                    : InProcessLauncher(description: mutant.name, make: mutant.make)
                defer { launcher.stopIdle() }
                do {
                    row.explored = try Explorer(machine: machine, launcher: launcher, world: world)
                        .first(failing: mutant.expected, ExploreOptions(seed: UInt64(seed), runs: exploreRuns, jobs: jobs, strategy: strategy))
                } catch {
                    // Not "not found": nothing was explored.
                    row.exploreError = "\(error)"
                }
            }
            return row
        }
        if console.isTerminal { console.err("\r\u{1B}[K") }

        var lines = [controlPasses
            ? "control: the unmodified reference passes every case and every requirement"
            : "control: the unmodified reference FAILS \((controlFailures.isEmpty ? controlNotPassing : controlFailures.sorted()).joined(separator: ", ")); the matrix below means nothing until it passes",
                     ""]
        lines += matrix(rows, explored: exploreRuns != nil)
        let killed = rows.filter(\.killed).count
        let percent = rows.isEmpty ? 0 : Int((Double(killed) / Double(rows.count) * 100).rounded(.down))
        lines.append("")
        let short = rows.filter { !$0.expectedMet }
        if !short.isEmpty {
            lines.append("not failing their expected requirements: " + short.map {
                "\($0.mutant.name) (survives on \(Set($0.mutant.expected).subtracting($0.failed).sorted().joined(separator: ", ")))"
            }.joined(separator: "; "))
        }
        for row in rows {
            if let error = row.exploreError { lines.append("not explored: \(row.mutant.name): its client could not be started: \(error)") }
        }
        let unexplored = exploreRuns == nil ? [] : rows.filter { $0.explored == nil && $0.exploreError == nil }
        if let exploreRuns, !unexplored.isEmpty {
            lines.append("not found by \(exploreRuns) generated runs: " + unexplored.map(\.mutant.name).joined(separator: ", "))
        }
        let errored = rows.filter { !$0.errored.isEmpty }
        if !errored.isEmpty {
            lines.append("cases that errored: " + errored.map { "\($0.mutant.name) (\($0.errored.joined(separator: ", ")))" }.joined(separator: "; "))
        }
        let inconclusive = rows.filter { !$0.inconclusive.isEmpty }
        if !inconclusive.isEmpty {
            lines.append("cases that were inconclusive: " + inconclusive.map { "\($0.mutant.name) (\($0.inconclusive.joined(separator: ", ")))" }.joined(separator: "; "))
        }
        let defects = rows.filter { $0.mutant.kind == .defect }
        if !defects.isEmpty {
            let superset = defects.map(\.others.count).reduce(0, +)
            lines.append("superset of the \(defects.count) single-defect variants: \(superset) requirement\(superset == 1 ? "" : "s") beyond their expected ones")
        }
        lines.append("score: \(killed) / \(rows.count) killed (\(percent)%)")
        if arguments.flags.contains("verbose") {
            for row in rows { lines += ["", "\(row.mutant.name):"] + findings(row.result) }
        }
        console.out(lines.joined(separator: "\n") + "\n")
        let exploreErrors = rows.contains { $0.exploreError != nil }
        return controlPasses && killed == rows.count && short.isEmpty && unexplored.isEmpty && !exploreErrors ? .success : .conformanceFailure
    }

    /// Requirements the run charged a finding to: `fail` for MUST, `warn` for SHOULD and MAY.
    static func failedRequirements(_ result: RunResult) -> Set<String> {
        Set(result.requirements.filter { $0.status == .fail || $0.status == .warn }.map(\.id))
    }

    static func matrix(_ rows: [Row], explored: Bool = false) -> [String] {
        let nameWidth = max(8, rows.map(\.mutant.name.count).max() ?? 0) + 2
        func column(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0) }
        var lines = [column("variant", nameWidth) + column("kind", 8) + column("killed", 8) + column("expected", 10)
            + (explored ? column("explore", 11) : "")
            + "killed by (expected requirements failed) | also failed"]
        for row in rows {
            let documented = row.mutant.documentedFailures
            let others = row.others.map { documented.contains($0) ? $0 : $0 + "!" }
            lines.append(column(row.mutant.name, nameWidth) + column(row.mutant.kind.rawValue, 8)
                + column(row.killed ? "yes" : "NO", 8) + column(row.expectedMet ? "yes" : "NO", 10)
                + (explored ? column(row.explored.map { "run \($0.run.run)" } ?? (row.exploreError == nil ? "NO" : "error"), 11) : "")
                + (row.killedBy.isEmpty ? "-" : row.killedBy.joined(separator: ", "))
                + (others.isEmpty ? "" : " | " + others.joined(separator: ", ")))
        }
        return lines
    }

    /// Each failing case with its findings, each once, with the requirements it is charged to.
    static func findings(_ result: RunResult) -> [String] {
        result.outcomes.filter { !$0.findings.isEmpty || $0.status == .error }.flatMap { outcome in
            var seen: Set<String> = []
            let lines = outcome.findings.compactMap { finding -> String? in
                let line = "    [\(finding.requirements.joined(separator: ", "))] step \(finding.step + 1), \(finding.check): \(finding.message)"
                return seen.insert(line).inserted ? line : nil
            }
            return ["  \(outcome.caseID)" + (outcome.status == .error ? " (error: \(outcome.reason ?? ""))" : "")] + lines
        }
    }

    private static func number(_ arguments: ParsedArguments, _ name: String, default fallback: Int) throws -> Int {
        guard let text = arguments.value(name) else { return fallback }
        guard let value = Int(text), value >= 0 else { throw UsageError("--\(name) takes a whole number, not '\(text)'") }
        return value
    }
}
