@testable import ConformanceRunner
import Foundation
import Testing

/// Adapters that misbehave on purpose (Tests/AdapterProcessTests/Fixtures/hostile/): each gives an `error`
/// verdict with a reason that says what happened, within bounded time and memory.
@Suite("Hostile adapters")
struct HostileAdapterTests {
    static let fixtures = Harness.packageRoot + "/Tests/AdapterProcessTests/Fixtures/hostile"
    static let oneCase = Harness.caseFile("""
          - id: hostile-adapter
            title: Sign in once
            requirements: [SIGNIN-PROMPT-ONCE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - expect: { for: [SIGNIN-PROMPT-ONCE], state: authenticated }

        """)

    static func outcome(_ command: String, timeout: Duration = .seconds(30)) throws -> CaseOutcome {
        let launcher = ProcessAdapterLauncher(commandLine: command, timeout: timeout)
        let result = try Harness.run(Self.oneCase, launcher: launcher)
        return try #require(result.outcomes.first)
    }

    /// The reason of the case's `error` verdict; an issue is recorded when the case did not error.
    static func errorReason(_ command: String, timeout: Duration = .seconds(30)) throws -> String? {
        let outcome = try outcome(command, timeout: timeout)
        #expect(outcome.status == .error)
        return outcome.reason
    }

    @Test("a barrier answered with another id is a protocol violation naming both ids")
    func wrongBarrier() throws {
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/wrong_barrier.py'")
                == "protocolViolation: the runner sent barrier 'b1' and the adapter answered 'not-b1'")
    }

    @Test("an adapter that chatters without settling errors when the step's time is up, not never")
    func chatterCannotStretchAStep() throws {
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/chatters.py'", timeout: .seconds(2))
                == "hung: the step took longer than 2.0 seconds: the adapter kept sending messages without settling")
    }

    @Test("an adapter whose lines come faster than the runner takes them cannot stretch a step past its time")
    func floodCannotStretchAStep() throws {
        // 199,000 small lines, within what a case may hold: they come faster than the runner takes them (several seconds
        // of work, even in a release build), so a line is always waiting and no wait for one ever times out.
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/near_limit.py' --messages 199000", timeout: .seconds(2))
                == "hung: the step took longer than 2.0 seconds: the adapter kept sending messages without settling")
    }

    @Test("an adapter that never says hello is reported as never started, not as one that kept sending")
    func neverStarted() throws {
        let launcher = ProcessAdapterLauncher(commandLine: "exec /bin/sh '\(Self.fixtures)/never_says_hello.sh'", timeout: .seconds(1))
        let result = try Harness.run(Self.oneCase, launcher: launcher)
        #expect(result.outcomes.isEmpty)
        #expect(result.startupFailure?.description == "hung: the adapter sent no message within 1.0 seconds of starting (no hello)")
    }

    @Test("an adapter that answered earlier and then sends nothing in a step is reported as silent")
    func silentAfterEarlierMessages() throws {
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/goes_silent.py'", timeout: .seconds(2))
                == "hung: the adapter sent nothing for 2.0 seconds while the runner waited for it")
    }

    @Test("an adapter that falls silent after a message of the step is reported as silent, with the count")
    func silentWithinAStep() throws {
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/goes_silent.py' --after-log", timeout: .seconds(2))
                == "hung: the adapter went silent after 1 message in this step and sent nothing more before the step's 2.0 seconds were up")
    }

    @Test("an adapter that closes its stdout and runs on is reported as such, with how long the runner waited")
    func closedStdout() throws {
        #expect(try Self.errorReason("exec python3 -u '\(Self.fixtures)/closes_stdout.py'", timeout: .seconds(5))
                == "hung: the adapter closed its stdout but kept running; the runner waited 1.0 seconds for it to exit")
    }

    @Test("an adapter that exits is reported as exited, with its status")
    func exited() throws {
        #expect(try Self.errorReason("exec /bin/sh '\(Self.fixtures)/exits_after_hello.sh'")
                == "crashed: the adapter ended (exited with status 3) while the runner waited for it")
    }

    @Test("an adapter that exited while its child holds stdout is reported as exited, with its status")
    func exitedWithChildHoldingStdout() throws {
        #expect(try Self.errorReason("exec /bin/sh '\(Self.fixtures)/exits_leaving_child.sh'")
                == "crashed: the adapter exited (exited with status 3) while a process it started still holds its stdout or stderr open")
    }

    @Test("an adapter that sends more than a case may hold errors, and the trace stays within its budget")
    func floodIsCapped() throws {
        let outcome = try Self.outcome("exec python3 -u '\(Self.fixtures)/floods_log.py'")
        #expect(outcome.status == .error)
        #expect(outcome.reason == "protocolViolation: the adapter sent more than 32 MiB in one case")
        #expect(outcome.trace.events.count < 1_000)
    }

    @Test("an adapter that sends just under what a case may hold leaves an outcome within the budget a case keeps")
    func nearLimitKeepsLittle() throws {
        let outcome = try Self.outcome("exec python3 -u '\(Self.fixtures)/near_limit.py'", timeout: .seconds(120))
        #expect(outcome.status != .error, "\(outcome.reason ?? "")")
        // 550 log lines of 60 KB: each kept cut, with its marker.
        #expect(outcome.trace.cutMessages == 550)
        let kept = outcome.trace.events.reduce(0) { $0 + $1.kind.keptSize }
        #expect(kept <= 550 * CaseRetention.maximumMessageBytes)
    }

    @Test("200 MB of stderr before the first message is drained in time, not taken for a hang")
    func bulkStderr() throws {
        let outcome = try Self.outcome("exec python3 -u '\(Self.fixtures)/slow_stderr.py'", timeout: .seconds(20))
        #expect(outcome.reason?.hasPrefix("hung") != true, "\(outcome.reason ?? "")")
    }

    @Test("a client that lets 1.5 s of real time pass during a refresh gets a real-time note beside its trace, and the same verdict as without the wait")
    func realTimeWaitIsNotedAndDecidesNothing() throws {
        let refreshCase = Harness.caseFile("""
              - id: real-time-backoff
                title: A request refreshes once
                requirements: [REFRESH-SINGLE-FLIGHT]
                steps:
                  - launch: {}
                  - signIn: { account: alice }
                  - fault: { path: /resources/*, kind: expiredToken, times: 1 }
                  - request: { resource: inbox }

            """)
        func outcome(_ arguments: String) throws -> CaseOutcome {
            let launcher = ProcessAdapterLauncher(commandLine: "exec python3 -u '\(Self.fixtures)/sleeps_in_real_time.py' \(arguments)",
                                                  timeout: .seconds(30))
            return try #require(try Harness.run(refreshCase, launcher: launcher).outcomes.first)
        }
        let sleeping = try outcome("")
        // The longest silence is the client's sleep (a loaded machine may add shorter ones).
        let wait = try #require(sleeping.trace.realTimeWaits.max { $0.seconds < $1.seconds })
        #expect(wait.seconds >= 1.5 && wait.step == 3, "\(wait)")
        // The silence came during the refresh: after the client said it started, before it sent the request. The note
        // sits beside that event, unnumbered.
        guard case .received(.transition(let started)) = sleeping.trace.events[wait.afterEvent - 1].kind,
              case .received(.http(_, _, let request)) = sleeping.trace.events[wait.afterEvent].kind else {
            Issue.record("the wait is not where the client slept: \(Harness.rendered(sleeping))")
            return
        }
        #expect(started.transition == "refresh-started" && request.path == "/auth/refresh")
        let annotated = TraceRenderer(vault: sleeping.vault).render(sleeping.trace, realTimeNotes: true)
        #expect(annotated.contains("   (real time: the adapter sent nothing for \(wait.seconds) s of real time after #\(wait.afterEvent)"))
        #expect(!Harness.rendered(sleeping).contains("(real time:"), "the plain rendering depends on the events alone")

        // The same client without the sleep: the same verdict and events (its own notes, if the machine stalled,
        // are beside the point).
        let quick = try outcome("--no-sleep")
        #expect(sleeping.status == quick.status && sleeping.findings.map(\.message) == quick.findings.map(\.message))
        #expect(sleeping.trace.events.count == quick.trace.events.count)
    }

    @Test("the trace budget names what was exceeded")
    func budgetWords() {
        #expect(TraceBudget.overflow(events: TraceBudget.maximumEvents, receivedBytes: 0) == nil)
        #expect(TraceBudget.overflow(events: TraceBudget.maximumEvents + 1, receivedBytes: 0) == "200000 messages")
        #expect(TraceBudget.overflow(events: 1, receivedBytes: TraceBudget.maximumReceivedBytes + 1) == "32 MiB")
    }
}
