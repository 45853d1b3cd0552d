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

/// `bench --explore`: how many generated runs a minute `explore` plays against the reference in-process.
/// Wall-clock time here only measures; the runs decide what they decide whatever the speed.
enum ExploreBench {
    static func run(_ arguments: ParsedArguments, machine: StateMachine?, repeats: Int, console: any Console) throws -> ExitCode {
        let runs = Int(arguments.value("runs") ?? "20000") ?? 0
        let jobs = Int(arguments.value("jobs") ?? "2") ?? 0
        guard runs >= 1, jobs >= 1 else { throw UsageError("--runs and --jobs take a whole number of at least 1") }
        guard let machine else { return .specOrUsageError }
        let launcher = InProcessLauncher(description: "in-process") { ReferenceClientAdapter() }
        let explorer: Explorer
        do {
            explorer = try Explorer(machine: machine, launcher: launcher)
        } catch {
            console.err("bench: \(error)\n")
            return .conformanceFailure
        }
        var rates: [Double] = []
        var seconds: [Double] = []
        var cpuRates: [Double] = []
        var failures: [String] = []
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = cpuSeconds()
            let result = explorer.explore(ExploreOptions(seed: 1, runs: runs, jobs: jobs), now: { 0 })
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let cpu = cpuSeconds() - cpuStart
            failures = result.failures.map { "\($0.key) (first run \($0.run))" }
            seconds.append(elapsed)
            rates.append(Double(result.runsDone) / elapsed * 60)
            // What the same work gives on `jobs` cores of its own, when other processes share the machine.
            cpuRates.append(Double(result.runsDone) / max(cpu, 1e-9) * 60 * Double(jobs))
        }
        var lines = [
            "| measurement | median | best |",
            "| --- | --- | --- |",
            BenchCommand.row("explore, \(Plural.count(runs, "run")), \(Plural.count(jobs, "job")), in-process", seconds),
            String(format: "| explore runs per minute (wall) | %.0f | %.0f |", BenchCommand.median(rates), rates.max() ?? 0),
            String(format: "| explore runs per minute (CPU time, x%d jobs) | %.0f | %.0f |", jobs,
                   BenchCommand.median(cpuRates), cpuRates.max() ?? 0),
        ]
        if !failures.isEmpty {
            // The speed is still the speed; the failures are explore's to report, and are named so nobody misses them.
            lines.append("")
            lines.append("note: the reference fails \(failures.count) distinct failure(s) in these runs: "
                         + failures.joined(separator: "; "))
        }
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }

    /// CPU time of this process (user and system), for the figure that does not depend on other load.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
