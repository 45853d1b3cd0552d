import ConformanceRunner
import Foundation
import SpecModel

/// `bench --adapter`: an external adapter's full suite with one process per case, and with one process
/// reused through `reset`. Both must give the same verdicts: reset is a speed-up, never a different result.
enum ResetBench {
    static func run(_ adapters: [String], bundle: SpecBundle, repeats: Int, console: any Console) throws -> ExitCode {
        var lines = ["| adapter | per case (median) | with reset (median) | speed-up |", "| --- | --- | --- | --- |"]
        var differ: [String] = []
        for adapter in adapters {
            var fresh: [Double] = []
            var reused: [Double] = []
            var verdicts: [[String: String]] = []
            for _ in 0..<repeats {
                for reuse in [false, true] {
                    let launcher = ProcessAdapterLauncher(commandLine: adapter, timeout: .seconds(30), reuse: reuse)
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result = SuiteRunner(bundle: bundle, launcher: launcher).run(RunOptions())
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    if let failure = result.startupFailure {
                        console.err("bench: \(adapter): \(failure.message)\n")
                        return .adapterNotStarted
                    }
                    if reuse { reused.append(seconds) } else { fresh.append(seconds) }
                    verdicts.append(Self.verdicts(result))
                }
            }
            if Set(verdicts).count > 1 { differ.append(adapter) }
            let speedUp = BenchCommand.median(fresh) / max(BenchCommand.median(reused), 1e-9)
            lines.append(String(format: "| `%@` | %.2f s | %.2f s | %.1fx |", adapter, BenchCommand.median(fresh),
                                BenchCommand.median(reused), speedUp))
        }
        console.out(lines.joined(separator: "\n") + "\n")
        guard differ.isEmpty else {
            console.err("bench: the verdicts differ with and without reset for \(differ.joined(separator: ", "))\n")
            return .conformanceFailure
        }
        return .success
    }

    /// Each case's and each requirement's status: what must not change with reset.
    static func verdicts(_ result: RunResult) -> [String: String] {
        var all: [String: String] = [:]
        for outcome in result.outcomes { all["case " + outcome.caseID] = outcome.status.rawValue }
        for requirement in result.requirements { all[requirement.id] = requirement.status.rawValue }
        return all
    }
}
