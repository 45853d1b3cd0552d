import ConformanceRunner
import Dispatch
import Foundation
import ReferenceAdapter
import SpecModel

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
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = explorer.explore(ExploreOptions(seed: 1, runs: runs, jobs: jobs), now: { 0 })
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if let failure = result.failures.first {
                console.err("bench: the reference fails explore run \(failure.run) (\(failure.key)); "
                            + "the figure would measure the wrong thing\n")
                return .conformanceFailure
            }
            seconds.append(elapsed)
            rates.append(Double(result.runsDone) / elapsed * 60)
        }
        let lines = [
            "| measurement | median | best |",
            "| --- | --- | --- |",
            BenchCommand.row("explore, \(runs) runs, \(jobs) jobs, in-process", seconds),
            String(format: "| explore runs per minute | %.0f | %.0f |", BenchCommand.median(rates), rates.max() ?? 0),
        ]
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }
}
