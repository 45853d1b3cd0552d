import ConformanceReports
import ConformanceRunner
import SpecModel

/// `session-conformance doctor`: checks an adapter's protocol and wiring in seconds, before `run`.
enum DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "Check an adapter: what it does wrong with the protocol, each with the fix."
    static let usage = "session-conformance doctor [--adapter COMMAND | --listen HOST:PORT --launch COMMAND [--kill COMMAND]] [--timeout SECONDS] [--loopback-port PORT] [--world FILE|NAME] [--report json[=PATH]]"
    static let discussion = """
        Plays a fixed script of six short probes against the adapter, one at a time: sign-in and one request,
        a refresh after the access token expired, a request the world holds for two minutes of the virtual
        clock, a kill and relaunch, a sign-out, and a launch with nothing stored (after a 'reset' when the
        adapter declares one). It reads the adapter's hello (capabilities, HTTP mode, refresh triggers) and,
        from each probe, what the adapter did wrong: a barrier answered with another id or not at all,
        output that is not JSON lines, messages while idle, an 'abandon' of an unknown effect, a bad fork pid,
        loopback requests not counted in 'httpStarted', a command without a result, state changes, storage,
        HTTP or shown content that never reach the runner, a token in stderr or logs, and a reset that keeps
        the session. Notes (exit 0) say what is legal but worth knowing: no request deadline, real time passing
        with the adapter silent, a slow probe, an unknown capability, requests that name no command ('cause').

        Each diagnosis is one line: what was seen, what the protocol says, the doc section, and the fix. The
        client's verdicts are not judged here: that is 'run'. The first probe that ends in an adapter error
        (a crash, a hang past --timeout, broken protocol) stops the script; the later probes are 'not-run'.
        Without --adapter, the built-in reference's adapter process is checked; --listen, --launch and --kill
        check a client that connects over TCP, as for run.

        --report json[=PATH] writes the diagnoses as JSON (default path session-conformance-doctor.json; '-'
        is standard output). Exit 0: no problem (notes allowed); 1: a problem; 3: the adapter did not start or
        gave no valid hello; 2: a usage error.
        """
    static let options = [
        OptionSpec(name: "adapter", kind: .value(placeholder: "COMMAND"), help: "The adapter's command line (run with /bin/sh -c); default: the reference's."),
        OptionSpec(name: "timeout", kind: .value(placeholder: "SECONDS"),
                   help: "How long a step may take before the probe is an adapter error (default 10)."),
        OptionSpec(name: "loopback-port", kind: .value(placeholder: "PORT"),
                   help: "Serve loopback HTTP on this 127.0.0.1 port (default: a free port)."),
        OptionSpec(name: "world", kind: .value(placeholder: "FILE|NAME"),
                   help: "The world profile, as for run (default: json-v1; rfc6749 for loopback HTTP)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
        OptionSpec(name: "report", kind: .value(placeholder: "json[=PATH]"), help: "Write the diagnoses as JSON."),
    ] + SocketOptions.options

    static let defaultReportPath = "session-conformance-doctor.json"

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", hint: "doctor takes options only")
        }
        let reportPath = try reportPath(arguments)
        let timeout = try RunCommand.stepTimeout(arguments)
        let console = try ReportOnStandardOutputConsole.for(reportPath.map { [$0] } ?? [], console)
        let specRoot = try DefaultSpecRoot.chosen(arguments)
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0, let machine = lint.bundle.stateMachine else {
            console.err(lint.rendered())
            console.err("doctor: the specs have errors; fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        var doctor = AdapterDoctor(launcher: try launcher(arguments, timeout: timeout), machine: machine)
        do { doctor.world = try WorldArgument.option(arguments, bundle: lint.bundle, command: "doctor", console: console) } catch is WorldArgument.Reported {
            return .specOrUsageError
        }
        doctor.worlds = lint.bundle.worlds
        let report = doctor.examine()
        console.out(DoctorReportWriter.text(report))
        if let reportPath, !OutputFile.write(DoctorReportWriter.json(report, suiteVersion: SessionConformance.version),
                                             what: "the doctor report", to: reportPath, console: console) {
            return .specOrUsageError
        }
        if report.notStarted { return .adapterNotStarted }
        return report.problems.isEmpty ? .success : .conformanceFailure
    }

    private static func reportPath(_ arguments: ParsedArguments) throws -> String? {
        guard let text = arguments.value("report") else { return nil }
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.first == "json" else {
            throw UsageError("doctor writes its report as json only, not '\(parts.first ?? text)'", hint: "--report json or --report json=PATH")
        }
        return parts.count == 2 ? parts[1] : defaultReportPath
    }

    private static func launcher(_ arguments: ParsedArguments, timeout: Int) throws -> any AdapterLauncher {
        if let socket = try SocketOptions.launcher(arguments, timeout: timeout) { return socket }
        let command = arguments.value("adapter") ?? ReferenceAdapterExecutable.commandLine
        return ProcessAdapterLauncher(commandLine: command, timeout: .seconds(timeout), loopbackPort: try RunCommand.loopbackPort(arguments))
    }
}
