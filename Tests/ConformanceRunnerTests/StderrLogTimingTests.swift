import AdapterProcess
@testable import ConformanceRunner
import Foundation
import Testing

/// A client's log is read when its case ends, right after its last answer. The stderr reader thread may not have
/// run by then (an explore job shares its CPU with it), so the runner waits until the log is read to its end
/// (`AdapterConnection.capturedLog`): a token logged just before the last answer is charged to its own case.
@Suite("The log a case ends with is judged")
struct StderrLogTimingTests {
    @Test("a token logged just before a case's last answer is charged, in every case of a reused adapter process")
    func lastLogLineIsJudged() throws {
        let cases = (1...30).map { number in """
              - id: last-answer-logs-a-token-\(number)
                title: Sign in once, then the adapter logs the token before its answer
                requirements: [LOG-NO-TOKEN-VALUES]
                steps:
                  - launch: {}
                  - signIn: { account: alice }

            """ }.joined()
        let script = Harness.packageRoot + "/Tests/ConformanceRunnerTests/Fixtures/logs-token/adapter.py"
        let launcher = ProcessAdapterLauncher(commandLine: "exec python3 '\(script)'", timeout: .seconds(20))
        defer { launcher.stopIdle() }
        // As an explore job runs: this thread, the adapter and its reader threads on one CPU.
        let saved = CPUPinning.currentMask()?.cpus.last.flatMap(CPUPinning.pinCurrentThread(to:))
        defer { saved.map(CPUPinning.restore) }
        let result = try Harness.run(Harness.caseFile(cases), launcher: launcher)
        #expect(result.outcomes.count == 30)
        for outcome in result.outcomes {
            let charged = outcome.findings.contains { $0.message.hasPrefix("the adapter's stderr log holds a value or fragment of at#") }
            #expect(charged, "\(outcome.caseID): \(outcome.status), \(outcome.findings.map(\.message))")
        }
    }
}
