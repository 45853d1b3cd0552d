import ConformanceReports
import Foundation

extension RunCommand {
    /// `--write-expected-failures FILE`: the run's failed and warned requirements as a starting
    /// expected-failures file; nil when written (or not asked for).
    static func writeExpectedFailures(_ report: ComplianceReport, _ arguments: ParsedArguments, console: any Console) -> ExitCode? {
        guard let path = arguments.value("write-expected-failures") else { return nil }
        let written = OutputFile.write(ExpectedFailuresWriter.render(report), what: "the expected failures", to: path, console: console)
        return written ? nil : .specOrUsageError
    }
}

/// A file a command writes (a report, an expected-failures file): to standard output for `-` or `/dev/stdout`,
/// else to a regular file as ``ReportFile`` does. Says where it went, or why it could not.
enum OutputFile {
    static func write(_ text: String, what: String, to path: String, console: any Console) -> Bool {
        do {
            if ReportFile.isStandardOutput(path) {
                try console.outReport(text)
            } else {
                try ReportFile.write(text, to: path)
                console.err("wrote \(what) to \(path)\n")
            }
            return true
        } catch {
            let reason = (error as? ReportFile.Error)?.reason ?? "\(error)"
            let place = ReportFile.isStandardOutput(path) ? "standard output" : path
            console.err("error: cannot write \(what) to \(place): \(reason)\n")
            return false
        }
    }
}
