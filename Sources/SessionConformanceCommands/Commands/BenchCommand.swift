import ConformanceRunner
import Foundation
import ReferenceAdapter
import SpecModel
import SpecYAML

/// `session-conformance bench`: how fast the suite runs against the reference, in-process and as a
/// process, and how the runner copes with 1,000 and 10,000 simultaneous 401s. Wall-clock time here only
/// measures; it decides nothing. Results belong in docs/performance.md (build with -c release).
enum BenchCommand: Command {
    static let name = "bench"
    static let summary = "Measure the suite against the reference: in-process, as a process, and mass 401s."
    static let usage = "session-conformance bench [--repeat N] [--spec-root DIR] [--adapter COMMAND]... | --explore [--adapter COMMAND [--real-kills] [--no-pin]] [--runs N] [--jobs N]"
    static let discussion = """
        Runs every case against the reference in-process and through its adapter process, alternating, N times
        each (default 5), and reports the median and best wall time of each and their ratio; then one case
        each with 1,000 and 10,000 simultaneous 401s sharing one refresh, in-process. Build with
        'swift build -c release' first and run the release binary for numbers worth recording.

        --adapter COMMAND (repeatable) measures an external adapter instead, with and without the 'reset'
        capability (one process across cases, or one per case), alternating, and checks that both give the
        same verdicts (exit 1 otherwise). An adapter that does not declare 'reset' measures the same twice.

        --explore measures 'explore' instead: --runs generated runs (default 20000) against the reference
        in-process over --jobs workers (default 2), N times, in runs per minute (exit 1 when a run fails).
        With --adapter COMMAND (default --runs 1000) it measures the same runs through that adapter's processes
        too, alternating with in-process, and prints both rates, their ratio, the CPU per run of the runner and
        of the adapter processes, and the kills that ended or reset a process (--real-kills: every kill ends it).
        Each job keeps to one CPU with its adapter processes, as in 'explore' (--no-pin: the scheduler places them).
        """
    static let options = [
        OptionSpec(name: "repeat", kind: .value(placeholder: "N"), help: "Runs of each measurement (default 5)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
        OptionSpec(name: "adapter", kind: .value(placeholder: "COMMAND"),
                   help: "Measure this adapter with and without 'reset' instead (repeatable)."),
        OptionSpec(name: "explore", kind: .flag, help: "Measure 'explore' against the reference instead, in runs per minute."),
        OptionSpec(name: "runs", kind: .value(placeholder: "N"), help: "With --explore: runs per measurement (default 20000)."),
        OptionSpec(name: "jobs", kind: .value(placeholder: "N"), help: "With --explore: workers (default 2)."),
        OptionSpec(name: "real-kills", kind: .flag, help: "With --explore --adapter: every kill ends the adapter's process."),
        OptionSpec(name: "no-pin", kind: .flag, help: "With --explore --adapter: leave jobs and adapter processes to the scheduler."),
    ]

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        let repeats = Int(arguments.value("repeat") ?? "5") ?? 0
        guard repeats >= 1 else { throw UsageError("--repeat takes a whole number of at least 1") }
        let specRoot = try DefaultSpecRoot.chosen(arguments)
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0 else {
            console.err(lint.rendered())
            return .specOrUsageError
        }
        if arguments.flags.contains("explore") {
            return try ExploreBench.run(arguments, machine: lint.bundle.stateMachine, repeats: repeats, console: console)
        }
        if let adapters = arguments.values["adapter"] {
            return try ResetBench.run(adapters, bundle: lint.bundle, repeats: repeats, console: console)
        }
        let inProcess = InProcessLauncher(description: "in-process") { ReferenceClientAdapter() }
        let process = ProcessAdapterLauncher(commandLine: ReferenceAdapterExecutable.commandLine, timeout: .seconds(30))
        var inProcessTimes: [Double] = []
        var processTimes: [Double] = []
        var caseCount = 0
        do {
            for _ in 0..<repeats {
                let (first, cases) = try measure(SuiteRunner(bundle: lint.bundle, launcher: inProcess))
                inProcessTimes.append(first)
                caseCount = cases
                processTimes.append(try measure(SuiteRunner(bundle: lint.bundle, launcher: process)).seconds)
            }
        } catch {
            console.err("bench: \(error)\n")
            return .conformanceFailure
        }
        var lines = [
            "| measurement | median | best |",
            "| --- | --- | --- |",
            row("full suite (\(Plural.count(caseCount, "case"))), in-process", inProcessTimes),
            row("full suite (\(Plural.count(caseCount, "case"))), adapter process", processTimes),
        ]
        let ratio = median(processTimes) / max(median(inProcessTimes), 1e-9)
        for count in [1_000, 10_000] {
            var bundle = lint.bundle
            let load = massUnauthorizedCase(count: count)
            guard load.diagnostics.isEmpty, let caseFile = load.bundle.caseFiles.first else {
                console.err(load.renderer.render(load.diagnostics))
                return .specOrUsageError
            }
            bundle.caseFiles = [caseFile]
            var times: [Double] = []
            for _ in 0..<repeats {
                guard let (seconds, _) = try? measure(SuiteRunner(bundle: bundle, launcher: inProcess)) else {
                    console.err("bench: the reference does not pass the \(count) simultaneous 401s case\n")
                    return .conformanceFailure
                }
                times.append(seconds)
            }
            lines.append(row("\(count) simultaneous 401s, one refresh, in-process", times))
        }
        lines.append("")
        lines.append(String(format: "process / in-process (medians): %.2fx", ratio))
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }

    /// A bench of a failing suite measures the wrong thing.
    struct NotPassing: Error, CustomStringConvertible {
        let cases: [String]
        var description: String { "the reference does not pass \(cases.joined(separator: ", ")); run 'session-conformance run' first" }
    }

    /// One run of a suite: its wall time, and how many cases it ran.
    private static func measure(_ runner: SuiteRunner) throws -> (seconds: Double, cases: Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = runner.run(RunOptions())
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let failing = result.outcomes.filter { $0.status == .fail || $0.status == .error }.map(\.caseID)
        guard failing.isEmpty else { throw NotPassing(cases: failing) }
        return (seconds, result.outcomes.count)
    }

    /// The built-in case of `count` simultaneous 401s that share one refresh.
    static func massUnauthorizedCase(count: Int) -> SpecLoadResult {
        let yaml = """
            kind: cases
            version: 1
            cases:
              - id: bench-\(count)-simultaneous-401s
                title: \(count) simultaneous 401s share one refresh
                requirements: [REFRESH-SINGLE-FLIGHT]
                steps:
                  - launch: {}
                  - signIn: { account: alice }
                  - fault: { path: /resources/*, kind: expiredToken, times: \(count) }
                  - hold: { path: /auth/refresh }
                  - request: { resource: feed, count: \(count) }
                  - expect: { for: [REFRESH-SINGLE-FLIGHT], held: 1 }
                  - release: { path: /auth/refresh }
                  - expect: { for: [REFRESH-SINGLE-FLIGHT], results: { ok: \(count) }, requests: [{ path: /auth/refresh, count: 0 }] }
            """
        var result = SpecLoadResult()
        SpecLoader.load(bytes: Array(yaml.utf8), file: "bench-\(count).yaml", into: &result)
        return result
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func row(_ name: String, _ values: [Double]) -> String {
        String(format: "| %@ | %.3f s | %.3f s |", name, median(values), values.min() ?? 0)
    }
}
