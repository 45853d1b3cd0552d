import ConformanceRunner
import Dispatch
import Foundation
import ReferenceAdapter
import SpecModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bench --explore`: how many generated runs a minute `explore` plays against the reference in-process, and with
/// `--adapter`, through that adapter's processes in the same repeat, with their ratio and where the CPU went.
/// Wall-clock time here only measures; the runs decide what they decide whatever the speed.
enum ExploreBench {
    static func run(_ arguments: ParsedArguments, machine: StateMachine?, repeats: Int, console: any Console) throws -> ExitCode {
        let adapters = arguments.values["adapter"] ?? []
        guard adapters.count <= 1 else { throw UsageError("bench --explore measures one --adapter at a time") }
        let runs = Int(arguments.value("runs") ?? (adapters.isEmpty ? "20000" : "1000")) ?? 0
        let jobs = Int(arguments.value("jobs") ?? "2") ?? 0
        guard runs >= 1, jobs >= 1 else { throw UsageError("--runs and --jobs take a whole number of at least 1") }
        guard let machine else { return .specOrUsageError }
        let processDeathEvery = arguments.flags.contains("real-kills") ? 1 : ExploreOptions().processDeathEvery
        let inProcess = InProcessLauncher(description: "in-process") { ReferenceClientAdapter() }
        let adapter = adapters.first.map { ProcessAdapterLauncher(commandLine: $0, timeout: .seconds(30)) }
        defer { adapter?.stopIdle() }
        let explorers: [(name: String, explorer: Explorer)]
        do {
            explorers = try [("in-process", Explorer(machine: machine, launcher: inProcess))]
                + (adapter.map { [("adapter", try Explorer(machine: machine, launcher: $0))] } ?? [])
        } catch {
            console.err("bench: \(error)\n")
            return .conformanceFailure
        }
        var samples: [String: [Sample]] = [:]
        var failures: [String: [String]] = [:]
        for _ in 0..<repeats {
            // Alternating, so both see the same load on this shared machine.
            for (name, explorer) in explorers {
                var options = ExploreOptions(seed: 1, runs: runs, jobs: jobs, processDeathEvery: processDeathEvery)
                options.pinWorkers = !arguments.flags.contains("no-pin")
                let (sample, result) = measure(explorer, options)
                samples[name, default: []].append(sample)
                failures[name] = result.failures.map { "\($0.key) (first run \($0.run))" }
            }
        }
        var lines = [
            "| measurement | median | best |",
            "| --- | --- | --- |",
        ]
        for (name, _) in explorers {
            let taken = samples[name] ?? []
            let label = name == "in-process" ? "in-process" : "through `\(adapters[0])`"
            lines.append(BenchCommand.row("explore, \(Plural.count(runs, "run")), \(Plural.count(jobs, "job")), \(label)", taken.map(\.seconds)))
            lines.append(String(format: "| runs per minute (wall), %@ | %.0f | %.0f |", label,
                                BenchCommand.median(taken.map(\.rate)), taken.map(\.rate).max() ?? 0))
            if name == "in-process" {
                lines.append(String(format: "| runs per minute (CPU time, x%d jobs), in-process | %.0f | %.0f |", jobs,
                                    BenchCommand.median(taken.map(\.cpuRate)), taken.map(\.cpuRate).max() ?? 0))
            } else {
                lines.append(String(format: "| CPU per run, runner (ms) | %.1f | %.1f |", BenchCommand.median(taken.map(\.runnerMilliseconds)),
                                    taken.map(\.runnerMilliseconds).min() ?? 0))
                lines.append(String(format: "| CPU per run, adapter processes (ms) | %.1f | %.1f |", BenchCommand.median(taken.map(\.childMilliseconds)),
                                    taken.map(\.childMilliseconds).min() ?? 0))
            }
        }
        if adapter != nil, let base = samples["in-process"], let through = samples["adapter"] {
            let ratio = BenchCommand.median(through.map(\.rate)) / max(BenchCommand.median(base.map(\.rate)), 1e-9)
            lines.append("")
            lines.append(String(format: "adapter / in-process (runs per minute, medians): **%.1f%%**", ratio * 100))
            if let last = through.last {
                lines.append(last.killsEndForkedInstances
                    ? "kills in the last repeat: \(last.processDeaths), each ending the client instance's process (the adapter forks one per instance: 'fork')"
                    : "kills in the last repeat: \(last.processDeaths) ended the adapter's process, \(last.resetKills) reset it")
            }
        }
        for (name, _) in explorers where !(failures[name] ?? []).isEmpty {
            // The speed is still the speed; the failures are explore's to report, and are named so nobody misses them.
            lines.append("")
            lines.append("note: \(name == "in-process" ? "the reference" : "the adapter") shows \(failures[name]!.count) distinct failure(s) "
                         + "in these runs: " + failures[name]!.joined(separator: "; "))
        }
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }

    private struct Sample {
        var seconds: Double
        var rate: Double
        var cpuRate: Double
        var runnerMilliseconds: Double
        var childMilliseconds: Double
        var processDeaths: Int
        var resetKills: Int
        var killsEndForkedInstances: Bool
    }

    private static func measure(_ explorer: Explorer, _ options: ExploreOptions) -> (Sample, ExploreResult) {
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = cpuSeconds(children: false)
        let childStart = cpuSeconds(children: true)
        let result = explorer.explore(options, now: { 0 })
        // The kept processes are stopped and reaped, so their CPU time is counted as the children's.
        explorer.launcher.stopIdle()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = cpuSeconds(children: false) - cpuStart
        let child = cpuSeconds(children: true) - childStart
        let done = Double(max(result.runsDone, 1))
        // What the same work gives on `jobs` cores of its own, when other processes share the machine.
        let sample = Sample(seconds: elapsed, rate: Double(result.runsDone) / elapsed * 60,
                            cpuRate: Double(result.runsDone) / max(cpu, 1e-9) * 60 * Double(options.jobs),
                            runnerMilliseconds: cpu / done * 1000, childMilliseconds: child / done * 1000,
                            processDeaths: result.processDeaths, resetKills: result.resetKills,
                            killsEndForkedInstances: result.killsEndForkedInstances)
        return (sample, result)
    }

    /// CPU time (user and system) of this process, or of its reaped children: the figure that does not depend on other load.
    private static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
