import ConformanceRunner
import Foundation

/// Progress of a run on stderr: a live line rewritten in place on a terminal; one line per case
/// otherwise (CI logs), with its status and wall time. Wall time is shown, never used to decide.
struct ProgressLines: Sendable {
    let console: any Console

    func caseEnded(_ done: Int, _ total: Int, _ outcome: CaseOutcome) {
        let status = outcome.status.rawValue
        let shown = console.colors ? ConsoleStyle.paint(status, as: status) : status
        let counter = "[\(done)/\(total)]"
        if console.isTerminal {
            console.err("\r\u{1B}[K\(counter) \(shown) \(outcome.caseID)")
        } else {
            console.err("\(counter) \(shown.padding(toLength: max(13, shown.count + 1), withPad: " ", startingAt: 0))"
                        + "\(outcome.caseID) (\(String(format: "%.2f", outcome.duration)) s)\n")
        }
    }

    func finish() {
        if console.isTerminal { console.err("\r\u{1B}[K") }
    }
}
