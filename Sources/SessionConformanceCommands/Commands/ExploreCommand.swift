import ConformanceReports
import ConformanceRunner
import Dispatch
import Foundation
import Mutants
import ReferenceAdapter
import SimulatedWorld
import SpecModel

/// `session-conformance explore`: generated programs and schedules, judged by the oracles; each distinct
/// failure is printed with its replay command and shrunk to a case file (docs/exploration.md).
enum ExploreCommand: Command {
    static let name = "explore"
    static let summary = "Explore generated scenarios and schedules; shrink each failure to a case."
    static let usage = "session-conformance explore [--runs N] [--seed S] [--adapter COMMAND | --variant NAME | --listen HOST:PORT --launch COMMAND [--kill COMMAND]] [--world FILE|NAME] [--jobs N] [--strategy guided|random] [--time-budget SECONDS] [--shard I/N] [--replay S:K] [--shrink-dir DIR] [--no-shrink] [--real-kills] [--no-pin] [--report FORMAT[=PATH]]..."
    static let discussion = """
        Plays N generated runs against a client (the in-process reference by default). Run K of seed S is a
        program in the case language, generated from one seeded stream: launch, sign-in, bursts of requests,
        sign-out, switch, background refresh, lock and unlock, offline and online, clock advance and skew both
        ways, faults of every kind on auth and resource paths, held replies, server settings, revocation, kills
        at once or at a storage write, reboots; and a 'schedule' step whose seed orders every batch of replies
        and holds some over a round. No step expects anything: every oracle judges every run. The same seed
        gives the same runs, whatever --jobs.

        Each distinct failure (an oracle and the requirements it charges, or an adapter error) is printed once
        with its first run and the command that replays it exactly (--replay S:K prints that run's program,
        trace and findings). Then each is shrunk by delta debugging over its steps and its schedule choices to
        a short case that still fails the same way, written to --shrink-dir (default explore-cases) as a spec
        folder: cases/<id>.yaml beside copies of requirements.yaml, state-machine.yaml and sources/, so
        'session-conformance run --spec-root DIR --seed S' plays it. --no-shrink skips that.

        --time-budget bounds the whole command in seconds of wall time, shrinking included (runs start in its
        first two thirds; shrinking stops at the budget with the smallest case so far, marked not minimal); it
        never changes what a run decides. --shard I/N plays every N-th run from the I-th: the shards of a CI matrix cover the runs
        exactly once, and 'session-conformance merge' joins their JSON reports, each distinct failure once.
        --variant NAME explores a known-bad client of 'session-conformance mutants' (in-process), to see
        what the explorer finds. --report writes the exploration's report as 'run' does (the same formats,
        default paths and path rules; a report that cannot be written exits 2). --listen HOST:PORT --launch
        COMMAND [--kill COMMAND] explores a client that connects over TCP, as 'run' does (one job; every kill a
        real one).

        Kills through an adapter that declares 'reset': in run K, when K is a multiple of 8, every kill ends the
        adapter's process and the relaunch starts a new one, as 'run' always does; in the other runs a kill ends
        the client instance and resets the process instead (an interpreter's or a JVM's start costs more than a
        whole run). A failure first seen in such a run is played again with a new process for every instance
        before it is reported; one that does not show then, and shows again when the run is played as found, is
        reported as the adapter's: its 'reset' keeps state a new process would not have. --real-kills ends the
        process at every kill. Through an adapter that declares 'fork' every kill ends the process the adapter
        forked for the client instance (a real death for the price of a fork) and none is played as a reset.

        Through an adapter, each job keeps to one CPU with the adapter processes it starts: a barrier's round
        trip is then a switch between two processes on one CPU, not a wake-up of another (job K on the K-th CPU
        the command may use; with --jobs 1, the CPU it starts on). --no-pin leaves them to the scheduler. Where
        they run never changes what a run decides.

        Exit 1 when a failure was found, or when no sign-in succeeded in 10 or more runs
        that asked for one (nothing signed in was explored; the console says why when it can tell, such as a
        client that speaks another world profile), 0 otherwise.
        """
    static let options = [
        OptionSpec(name: "runs", kind: .value(placeholder: "N"), help: "Runs to play (default 1000)."),
        OptionSpec(name: "seed", kind: .value(placeholder: "S"), help: "The exploration's seed (default 1)."),
        OptionSpec(name: "adapter", kind: .value(placeholder: "COMMAND"), help: "The adapter's command line (run with /bin/sh -c)."),
        OptionSpec(name: "variant", kind: .value(placeholder: "NAME"), help: "Explore a known-bad variant in-process instead."),
        OptionSpec(name: "world", kind: .value(placeholder: "FILE|NAME"),
                   help: "The world profile: a file, or json-v1 or rfc6749 (default: json-v1; rfc6749 for loopback HTTP)."),
        OptionSpec(name: "jobs", kind: .value(placeholder: "N"), help: "Runs played in parallel (default 1)."),
        OptionSpec(name: "strategy", kind: .value(placeholder: "guided|random"),
                   help: "guided (default): aim half the runs at the situations earlier runs reached least and at requirement paths; random: seeds alone."),
        OptionSpec(name: "time-budget", kind: .value(placeholder: "SECONDS"), help: "Bound the whole command, shrinking included, to this much wall time."),
        OptionSpec(name: "shard", kind: .value(placeholder: "I/N"), help: "Play only every N-th run, from the I-th."),
        OptionSpec(name: "replay", kind: .value(placeholder: "S:K"), help: "Play run K of seed S and print its program, trace and findings."),
        OptionSpec(name: "shrink-dir", kind: .value(placeholder: "DIR"), help: "Where shrunk cases go (default explore-cases)."),
        OptionSpec(name: "no-shrink", kind: .flag, help: "Report failures without shrinking them."),
        OptionSpec(name: "real-kills", kind: .flag, help: "End the adapter's process at every kill, not in one run of 8 (see below)."),
        OptionSpec(name: "no-pin", kind: .flag, help: "Let the scheduler place each job and its adapter processes on any CPU."),
        OptionSpec(name: "timeout", kind: .value(placeholder: "SECONDS"), help: "How long a step of one command may take through an adapter (default 10; one more per 100 commands a step sends)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
        OptionSpec(name: "report", kind: .value(placeholder: "FORMAT[=PATH]"),
                   help: "Write a report: json, junit, markdown, html, tap or badge (repeatable)."),
    ] + SocketOptions.options

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        try run(arguments, console: console, launcher: nil)
    }

    static func run(_ arguments: ParsedArguments, console: any Console, launcher given: (any AdapterLauncher)?) throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", hint: "explore takes options only")
        }
        var settings = try Settings(arguments)
        let console = try ReportOnStandardOutputConsole.for(settings.reports.map(\.path), console)
        let lint = SpecLinter.lint(paths: [settings.specRoot], specRoot: settings.specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0, let machine = lint.bundle.stateMachine else {
            console.err(lint.rendered())
            console.err("explore: the specs have errors; fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        let world: WorldProfile?
        do { world = try WorldArgument.option(arguments, bundle: lint.bundle, command: "explore", console: console) } catch is WorldArgument.Reported {
            return .specOrUsageError
        }
        settings.worldName = world?.name
        let launcher = try given ?? makeLauncher(arguments, timeout: settings.timeout)
        defer { launcher.stopIdle() }
        let explorer: Explorer
        do {
            explorer = try Explorer(machine: machine, launcher: launcher, world: world)
        } catch {
            console.err(ConsoleText.lines("explore: the client could not be started: \(error)") + "\n")
            let notStarted = RunResult.notStarted(error, adapter: launcher.description, seed: settings.options.seed,
                                                  catalogue: lint.bundle.catalogue)
            _ = try write(notStarted, runs: 0, bundle: lint.bundle, settings: settings, started: Date(), console: console)
            return .adapterNotStarted
        }
        if let replay = settings.replay {
            return Self.replay(replay, explorer: explorer, processDeathEvery: settings.options.processDeathEvery, console: console)
        }
        let signals = RunSignals.start(console: console)
        defer { signals.stop() }
        let started = Date()
        let clock = DispatchTime.now().uptimeNanoseconds
        let progress = ExploreProgress(console: console, total: settings.options.shard.map { $0.runCount(upTo: settings.options.runs) }
                                       ?? settings.options.runs, replay: settings.replayCommand)
        let elapsed: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9 }
        // The time budget bounds the whole command: with shrinking on, the runs get two thirds of it and
        // shrinking the rest; shrinking stops at the budget with the smallest failing case so far.
        var options = settings.options
        if settings.shrink, let budget = options.timeBudget { options.timeBudget = budget * 2 / 3 }
        let result = explorer.explore(options, now: elapsed, progress: progress.ran)
        progress.finish(result)
        // A stopped exploration reports what it found at once, unshrunk.
        var shrinking = ExploreShrinking(explorer: explorer, settings: settings, bundle: lint.bundle)
        if let budget = settings.options.timeBudget { shrinking.outOfTime = { elapsed() >= budget } }
        let shrinkOutcome = settings.shrink && signals.exitCode == nil ? shrinking.shrinkAll(result, console: console) : ExploreShrinking.Outcome()
        let shrunk = shrinkOutcome.shrunk
        // A client that never signed in can still fail before it (its sign-in's input checks, say): both are said.
        if !result.failures.isEmpty {
            console.out(ExploreSummary.render(result, shrinking: shrinkOutcome, settings: settings))
        }
        if let nothing = result.exploredNothingReason {
            console.out(ConsoleText.lines("explore: \(Plural.count(result.runsDone, "run")) of seed \(settings.options.seed) explored nothing: \(nothing)") + "\n")
        } else if result.failures.isEmpty {
            console.out("explore: \(Plural.count(result.runsDone, "run")) of seed \(settings.options.seed), no failure\n")
        }
        console.out(ExploreSummary.coverage(result))
        if let failed = try writeReports(result, shrunk: shrunk, explorer: explorer, bundle: lint.bundle, settings: settings,
                                         started: started, console: console) {
            return failed
        }
        if let interrupted = signals.exitCode { return interrupted }
        return result.failures.isEmpty && !result.exploredNothing ? .success : .conformanceFailure
    }

    private static func replay(_ run: ExploreRunID, explorer: Explorer, processDeathEvery: Int, console: any Console) -> ExitCode {
        let steps = run.steps
        let outcome = explorer.play(run, processDeathEvery: processDeathEvery)
        var text = "run \(run.run) of seed \(run.seed)" + (run.focus.map { ", aimed at \($0)," } ?? "")
            + " (case \(run.caseID)): \(outcome.status.rawValue)\n\nprogram:\n"
        text += steps.map { "  " + $0.flowLine }.joined(separator: "\n") + "\n\ntrace:\n"
        text += TraceRenderer(vault: outcome.vault).render(outcome.trace, realTimeNotes: true) + "\n"
        if let reason = outcome.reason { text += "\nreason: \(reason)\n" }
        if !outcome.findings.isEmpty {
            text += "\nfindings:\n"
            for finding in outcome.findings {
                text += "  \(finding.requirements.joined(separator: ", ")) (\(finding.check)), step \(finding.step + 1), "
                    + "events \(finding.evidence.map { "#\($0)" }.joined(separator: " ")): \(finding.message)\n"
            }
        }
        // Client text (a reason quoting the adapter's stderr, a finding) is escaped like every console line.
        console.out(ConsoleText.lines(text))
        return outcome.status == .fail || outcome.status == .error ? .conformanceFailure : .success
    }

    private static func writeReports(_ result: ExploreResult, shrunk: [ShrunkFailure], explorer: Explorer, bundle: SpecBundle,
                                     settings: Settings, started: Date, console: any Console) throws -> ExitCode? {
        guard !settings.reports.isEmpty else { return nil }
        var bundle = bundle
        // A shrunk case's outcome stands for its failure (its trace is short and `run` reproduces it); an unshrunk
        // failure is reported with its first run.
        var outcomes: [CaseOutcome] = []
        var cases: [AcceptanceCase] = []
        var seen: Set<String> = []
        for failure in result.failures {
            if let done = shrunk.first(where: { $0.key == failure.key && $0.run == failure.run }) {
                outcomes.append(done.outcome)
                cases.append(done.acceptanceCase)
            } else if seen.insert(failure.run.caseID).inserted {
                outcomes.append(failure.outcome)
            }
        }
        bundle.caseFiles.append(CaseFile(file: "<explore>", cases: cases))
        let shard = settings.options.shard.flatMap { Shard(index: $0.index, count: $0.count) }
        let summaryID = "explore-seed-\(settings.options.seed)" + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "")
        let runResult = explorer.runResult(result, bundle: bundle, failureOutcomes: outcomes, summaryID: summaryID,
                                           seconds: Date().timeIntervalSince(started))
        return try write(runResult, runs: result.runsDone, bundle: bundle, settings: settings, started: started, console: console)
    }

    private static func write(_ runResult: RunResult, runs: Int, bundle: SpecBundle, settings: Settings, started: Date,
                              console: any Console) throws -> ExitCode? {
        guard !settings.reports.isEmpty else { return nil }
        let shard = settings.options.shard.flatMap { Shard(index: $0.index, count: $0.count) }
        let context = ReportContext(
            suiteVersion: SessionConformance.version, specRoot: settings.specRoot,
            specDigest: try SpecDigest.of(specRoot: settings.specRoot), bundle: bundle,
            command: settings.reproduceBase, startedAt: started, finishedAt: Date(), shard: shard)
        var report = ReportBuilder.build(runResult, context: context)
        // An exploration certifies nothing and fails on what it found, as its exit status does.
        report.run.exploration = RunInfo.Exploration(runs: runs)
        report.derive()
        return try RunCommand.writeReports(report, settings.reports, console: console)
    }

    private static func makeLauncher(_ arguments: ParsedArguments, timeout: Int) throws -> any AdapterLauncher {
        if let socket = try SocketOptions.launcher(arguments, timeout: timeout) { return socket }
        if let command = arguments.value("adapter") {
            guard arguments.value("variant") == nil else { throw UsageError("give --adapter or --variant, not both") }
            return ProcessAdapterLauncher(commandLine: command, timeout: .seconds(timeout))
        }
        if let name = arguments.value("variant") {
            guard let mutant = MutantRegistry.named(name) else {
                throw UsageError("unknown variant '\(name)'", hint: "'session-conformance mutants --list' names them")
            }
            return InProcessLauncher(description: "\(name) (in-process)", make: mutant.make)
        }
        return InProcessLauncher(description: "SessionKit (in-process)") { ReferenceClientAdapter() }
    }
}
