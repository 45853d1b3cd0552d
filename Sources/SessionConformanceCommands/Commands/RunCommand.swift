import ConformanceReports
import ConformanceRunner
import Foundation
import ReferenceAdapter
import SpecModel

/// `session-conformance run`: play every acceptance case against a client and report per requirement.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "Run the acceptance cases against a client and report per requirement."
    static let usage = "session-conformance run [--adapter COMMAND [--no-reset] [--loopback-port PORT] | --listen HOST:PORT --launch COMMAND [--kill COMMAND]] [--connection in-process|process] [--case ID]... [-k|--filter PATTERN]... [--requirement ID]... [--rerun-failed REPORT.json [--override-report]] [--seed N] [--timeout SECONDS] [--jobs N] [--report FORMAT[=PATH]]... [--expected-failures FILE] [--write-expected-failures FILE] [--shard I/N] [--world FILE|NAME]"
    static let discussion = """
        Without --adapter, the built-in reference implementation (SessionKit) is certified, in-process by
        default or as its own process with --connection process. --adapter runs an external client: the
        command line of its adapter, which speaks protocol v1 on stdin/stdout (docs/adapter-protocol.md).
        The runner plays the whole world: servers, storage, clock, network and process death. The same seed
        and adapter give the same trace. A crash, a hang past a step's time limit, or broken protocol makes
        the case an 'error' verdict with the adapter's stderr tail; the run goes on. The limit is wall time,
        used only to tell a hang: --timeout SECONDS (default 10) for a step that sends one command, one more
        --timeout for every 100 commands a step sends (a 'request' with count 1000 gets 11 times as long). An adapter that declares 'reset'
        keeps one process across cases (reset between them); every kill still ends its process, and the
        relaunch starts a new one. --no-reset starts a process per case anyway.

        A client that runs elsewhere (an app on a simulator, an emulator or a device) connects over TCP instead:
        --listen HOST:PORT --launch COMMAND [--kill COMMAND]. The runner listens on HOST:PORT, runs the launch
        command for every client instance and waits --timeout for it to connect; the kill command ends the
        instance at a kill (without one, the launch command's process group is ended). {port} in either
        command is the port listened on (port 0: a free one). One client at a time (--jobs 1); every instance is
        a new launch (docs/adapter-protocol.md, Socket transport).

        Reports: --report FORMAT[=PATH], repeatable, writes the run's compliance report as json, junit,
        markdown, html, tap or badge (default path session-conformance-report.FORMAT, .junit.xml, .md and
        .svg for junit, markdown and badge; badge is a shields-style SVG of the certification verdict for a
        README). Each says which suite and spec (a SHA-256 digest of the spec folder) it certifies
        against, the client and its capabilities, the seed, each requirement's status with its evidence and
        reproduce command, each case with its duration and trace (tokens as handles), and a certification
        verdict per profile: core, and core plus each optional capability.
        A report path must name a regular file (replaced whole through a temporary file beside it) or a
        symbolic link to one (the link stays); a device, FIFO, socket or folder is refused. PATH '-' or
        /dev/stdout writes the report to standard output, and the summary to standard error instead. A report
        that cannot be written is said, with the reason, and the run exits 2.

        --expected-failures FILE lists requirement or case IDs that are expected to fail, each with a reason
        (YAML: '- id: ID' and 'reason: TEXT' per entry). They are reported 'known' and do not fail the run.
        An expected failure that passes is reported, and fails the run (exit 1) so the file is kept honest,
        unless --allow-unexpected-passes is given. An error is never an expected failure: a case that errors
        fails the run (exit 1) whatever the file says, and no profile it covers is certified.

        A case whose precondition did not hold (the event it is about never happened, a kill point was never
        reached) is 'inconclusive': it charges and passes nothing. A requirement covered only by inconclusive
        cases is 'untested', with the reason; an untested MUST is not certified.

        The console lists each failed requirement with its statement, the design's words (the verbatim
        quotes, with their document) and at most 3 findings; identical findings of one check in one case are
        one, with a count. The reports keep every finding (past 100 distinct ones in a case, the rest are
        counted per check).

        A case's trace is kept whole in reports up to --trace-limit events (default 1000; 0: no limit); a
        longer one keeps its first and last 500 events and every event near the evidence. Whatever the
        limit, a case keeps at most 20,000 events and 2 MiB of messages once it has ended, and cuts a
        message over 1 KiB (docs/performance.md#hostile-input); real traces are far smaller.

        Selecting cases, as pytest does: -k PATTERN or --filter PATTERN plays the cases whose ID contains
        PATTERN, ignoring case ('-k refresh'); a PATTERN with a '*' is a glob over the whole ID instead, also
        ignoring case ('*' matches any run of characters, anywhere: 'launch-*', '*-401s'). --case ID plays
        that case (a case with triggers: all its variants, or one as 'ID[trigger]'); an ID that names no
        case is an error with the closest one. --requirement ID plays the cases that name it
        ('session-conformance list requirements' shows which), and --rerun-failed REPORT.json the cases
        that failed, errored or were inconclusive in that JSON report (all of them when its adapter could
        not be started). A report is data, never a command: only those case IDs are read from it. The
        adapter, connection, timeout and world are this command line's; no command or path the report
        records is run or opened. A command line whose client (--adapter, --connection, or the built-in
        reference when neither is given) or --world differs from what the report records is a usage error
        (exit 2) that shows, escaped, what the report recorded, unless --override-report is given. Its
        failed cases that the spec does not have (renamed or removed since) are named in a warning; when it
        has none of them, that is an error (exit 2), not a pass. A report larger than 64 MiB is refused.
        --case and --filter add up; selectors of different kinds narrow each other. A selected run lists
        only the requirements its cases cover and certifies nothing ('incomplete').

        Progress goes to stderr: a live line on a terminal, one line per case otherwise (status and wall
        time). Colours only on a terminal, and never when NO_COLOR is set. Paths inside the working directory
        are written relative to it in reproduce lines and reports, which start with the program as it was
        started ('session-conformance' from PATH, else its path, such as .build/debug/session-conformance).

        --world FILE|NAME sets the world profile: the endpoints' paths, bodies and field names, and the
        token lifetime, rotation and reuse interval every case starts with (a case's 'configure' step still
        changes them). NAME is a profile of the spec's worlds/ folder: json-v1 (JSON at /auth/login,
        /auth/refresh, /auth/revoke) or rfc6749 (an RFC 6749 token endpoint at /oauth/token and RFC 7009
        revocation at /oauth/revoke). Default: json-v1 for in-process and message-mode adapters, rfc6749 for
        loopback-HTTP adapters. Cases run unchanged under every profile; the reports name it.

        --shard I/N runs the I-th of N parts of the cases (deterministic: by a hash of each case ID), for
        CI matrices; 'session-conformance merge' joins the shards' JSON reports into the whole run's. A shard
        certifies nothing on its own and does not fail for requirements that other shards cover.
        """
    static let options = [
        OptionSpec(name: "adapter", kind: .value(placeholder: "COMMAND"), help: "The adapter's command line (run with /bin/sh -c)."),
        OptionSpec(name: "no-reset", kind: .flag,
                   help: "Start a new adapter process for every case even when the adapter declares 'reset'."),
        OptionSpec(name: "loopback-port", kind: .value(placeholder: "PORT"),
                   help: "Serve loopback HTTP on this 127.0.0.1 port (default: a free port, kept for the whole case)."),
        OptionSpec(name: "connection", kind: .value(placeholder: "KIND"),
                   help: "For the reference: in-process (default) or process."),
        OptionSpec(name: "case", kind: .value(placeholder: "ID"), help: "Run only this case (repeatable)."),
        OptionSpec(name: "filter", kind: .value(placeholder: "PATTERN"),
                   help: "Run only the cases whose ID contains PATTERN, ignoring case; with a *, a glob (repeatable).",
                   short: "k"),
        OptionSpec(name: "requirement", kind: .value(placeholder: "ID"), help: "Run only the cases that name this requirement (repeatable)."),
        OptionSpec(name: "rerun-failed", kind: .value(placeholder: "REPORT.json"),
                   help: "Run only the cases that failed, errored or were inconclusive in this JSON report (only their IDs are read)."),
        OptionSpec(name: RerunReport.overrideOption, kind: .flag,
                   help: "With --rerun-failed: let a given --adapter, --connection or --world differ from the report's."),
        OptionSpec(name: "seed", kind: .value(placeholder: "N"), help: "The world's seed (default 1)."),
        OptionSpec(name: "timeout", kind: .value(placeholder: "SECONDS"),
                   help: "How long a step of one command may take, however much the adapter sends, before the case errors (default 10; one more per 100 commands a step sends)."),
        OptionSpec(name: "jobs", kind: .value(placeholder: "N"), help: "Cases run in parallel (default 1)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
        OptionSpec(name: "verbose", kind: .flag, help: "List every requirement, informative ones included."),
        OptionSpec(name: "report", kind: .value(placeholder: "FORMAT[=PATH]"),
                   help: "Write a report: json, junit, markdown, html, tap or badge (repeatable)."),
        OptionSpec(name: "expected-failures", kind: .value(placeholder: "FILE"),
                   help: "YAML list of requirement or case IDs expected to fail, each with a reason."),
        OptionSpec(name: "write-expected-failures", kind: .value(placeholder: "FILE"),
                   help: "Write every failed or warned requirement, with its first finding, as an expected-failures file."),
        OptionSpec(name: "allow-unexpected-passes", kind: .flag,
                   help: "An expected failure that passes is reported but does not fail the run."),
        OptionSpec(name: "shard", kind: .value(placeholder: "I/N"), help: "Run only the I-th of N parts of the cases."),
        OptionSpec(name: "world", kind: .value(placeholder: "FILE|NAME"),
                   help: "The world profile: a file, or json-v1 or rfc6749 (default: json-v1; rfc6749 for loopback HTTP)."),
        OptionSpec(name: "trace-limit", kind: .value(placeholder: "N"),
                   help: "Trace events a case keeps in reports (default 1000; 0 keeps all)."),
    ] + SocketOptions.options

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        try run(arguments, console: console, launcher: nil)
    }

    /// `launcher`, when given, replaces the client the options choose (for tests of the command with a
    /// client in-process).
    static func run(_ arguments: ParsedArguments, console: any Console, launcher given: (any AdapterLauncher)?) throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", hint: "run takes options only")
        }
        let seed = try number(arguments, "seed", default: 1, as: UInt64.self)
        let jobs = try number(arguments, "jobs", default: 1, as: Int.self)
        let traceLimit = try number(arguments, "trace-limit", default: ReportContext.defaultTraceLimit, as: Int.self)
        guard traceLimit >= 0 else { throw UsageError("--trace-limit must be 0 (no limit) or more") }
        guard jobs >= 1 else { throw UsageError("--jobs must be at least 1") }
        let timeout = try stepTimeout(arguments)
        let requests = try reportRequests(arguments)
        // A report on standard output keeps it: the summary goes to standard error.
        let console = try ReportOnStandardOutputConsole.for(requests.map(\.path) + (arguments.values["write-expected-failures"] ?? []), console)
        let specRoot = try DefaultSpecRoot.chosen(arguments)
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0 else {
            console.err(lint.rendered())
            console.err("run: the specs have \(lint.errorCount) error\(lint.errorCount == 1 ? "" : "s"); fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        try RerunReport.check(arguments, bundle: lint.bundle)
        let launcher = try given ?? makeLauncher(arguments, timeout: timeout)
        guard let filters = try selection(arguments, bundle: lint.bundle, console: console) else { return .success }
        var options = RunOptions(seed: seed, jobs: jobs, filters: filters)
        do { options.world = try WorldArgument.option(arguments, bundle: lint.bundle, command: "run", console: console) } catch is WorldArgument.Reported {
            return .specOrUsageError
        }
        let runner = SuiteRunner(bundle: lint.bundle, launcher: launcher)
        let shard = try arguments.value("shard").map { text in
            guard let shard = Shard(text) else {
                throw UsageError("--shard takes I/N with 1 <= I <= N, not '\(text)'", hint: "for example --shard 2/4")
            }
            return shard
        }
        var expected: ExpectedFailures?
        if let path = arguments.value("expected-failures") {
            do {
                expected = try ExpectedFailures.load(path: path, bundle: lint.bundle)
            } catch {
                console.err(error.rendered)
                console.err("run: the expected-failures file \(path) has errors\n")
                return .specOrUsageError
            }
        }
        let reporting = ReportingRun(runner: runner, options: options, shard: shard, suiteVersion: SessionConformance.version,
                                     specRoot: specRoot, command: reproduceCommand(arguments), expectedFailures: expected,
                                     strictExpectedFailures: !arguments.flags.contains("allow-unexpected-passes"),
                                     traceLimit: traceLimit)
        let signals = RunSignals.start(console: console)
        defer { signals.stop() }
        let progress = ProgressLines(console: console)
        let report: ComplianceReport
        let result: RunResult
        do {
            (result, report) = try reporting.execute { done, total, outcome in progress.caseEnded(done, total, outcome) }
        } catch {
            console.err(ConsoleText.lines("run: \(error)") + "\n")
            return .specOrUsageError
        }
        progress.finish()
        let summary = TextSummaryWriter.render(report, verbose: arguments.flags.contains("verbose"), width: ConsoleWidth.current())
        console.out(console.colors ? ConsoleStyle.colorize(summary) : summary)
        if let world = result.world, let hint = WorldMismatch.hint(in: result.outcomes, profile: world) {
            console.err(ConsoleText.lines("run: hint: \(hint)") + "\n")
        }
        let failedReport = try writeReports(report, requests, console: console)
        let failedWrite = writeExpectedFailures(report, arguments, console: console) ?? failedReport
        if let interrupted = signals.exitCode {
            console.err("run: stopped by a signal after \(Plural.count(report.cases.count, "case")); the run is incomplete\n")
            return interrupted
        }
        if let failedWrite { return failedWrite }
        if result.startupFailure != nil { return .adapterNotStarted }
        return report.gate.passed ? .success : .conformanceFailure
    }

    /// The command that reruns a case: the options that choose the client, its timeout and the spec.
    static func reproduceCommand(_ arguments: ParsedArguments) -> String {
        var command = arguments.program + " run"
        if let adapter = arguments.value("adapter") {
            command += " --adapter " + ShellWord.quoted(adapter)
        }
        if let connection = arguments.value("connection"), connection != "in-process" { command += " --connection \(connection)" }
        command += SocketOptions.reproduce(arguments)
        if let timeout = arguments.value("timeout") { command += " --timeout \(timeout)" }
        command += WorldArgument.reproduceOption(arguments)
        if let root = arguments.value("spec-root").map({ WorkingDirectory.relative($0) }), root != "Specs" { command += " --spec-root '\(root)'" }
        return WorkingDirectory.relativizing(command)
    }

    static func reportRequests(_ arguments: ParsedArguments) throws -> [ReportRequest] {
        do {
            return try ReportRequest.parseAll(arguments.values["report"] ?? [])
        } catch {
            throw UsageError(error.message, hint: error.hint)
        }
    }

    /// Writes each requested report and says where; nil when all were written. A failed write is said and
    /// ends the command with exit 2 (the other reports are still written).
    static func writeReports(_ report: ComplianceReport, _ requests: [ReportRequest], console: any Console) throws -> ExitCode? {
        var failed = false
        for request in requests {
            let what = "the \(request.format.rawValue) report"
            failed = !OutputFile.write(request.format.render(report), what: what, to: request.path, console: console) || failed
        }
        return failed ? .specOrUsageError : nil
    }

    private static func makeLauncher(_ arguments: ParsedArguments, timeout: Int) throws -> any AdapterLauncher {
        if let socket = try SocketOptions.launcher(arguments, timeout: timeout) { return socket }
        if let command = arguments.value("adapter") {
            if arguments.value("connection") != nil {
                throw UsageError("--connection applies to the built-in reference only", hint: "drop it when you pass --adapter")
            }
            return ProcessAdapterLauncher(commandLine: command, timeout: .seconds(timeout), loopbackPort: try loopbackPort(arguments),
                                          reuse: !arguments.flags.contains("no-reset"))
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

    /// `--timeout SECONDS`: a whole number, at least 1 (default 10).
    static func stepTimeout(_ arguments: ParsedArguments) throws -> Int {
        let timeout = try number(arguments, "timeout", default: 10, as: Int.self)
        guard timeout >= 1 else { throw UsageError("--timeout must be at least 1 second") }
        return timeout
    }

    /// `--loopback-port PORT`, or nil without it.
    static func loopbackPort(_ arguments: ParsedArguments) throws -> UInt16? {
        guard let text = arguments.value("loopback-port") else { return nil }
        guard let value = UInt16(text), value > 0 else {
            throw UsageError("--loopback-port takes a port from 1 to 65535, not '\(text)'")
        }
        return value
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
        let sibling = ExecutableLocation.directory.appendingPathComponent("session-conformance-reference-adapter")
        // `exec`: the shell becomes the adapter instead of waiting on it as a second process.
        return "exec " + ShellWord.quoted(sibling.path)
    }
}
