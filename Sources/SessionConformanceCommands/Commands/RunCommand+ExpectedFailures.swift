import ConformanceReports
import Foundation

extension RunCommand {
    /// `--write-expected-failures FILE`: the run's failed and warned requirements as a starting
    /// expected-failures file; nil when written (or not asked for).
    static func writeExpectedFailures(_ report: ComplianceReport, _ arguments: ParsedArguments, console: any Console) -> ExitCode? {
        guard let path = arguments.value("write-expected-failures") else { return nil }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(ExpectedFailuresWriter.render(report).utf8).write(to: url, options: .atomic)
        } catch {
            console.err("error: cannot write the expected failures to \(path): \(error.localizedDescription)\n")
            return .specOrUsageError
        }
        console.err("wrote the expected failures to \(path)\n")
        return nil
    }
}
