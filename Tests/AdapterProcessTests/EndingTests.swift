@testable import AdapterProcess
import Foundation
import Testing

extension AdapterProcessTests {
    @Suite("Hangs, crashes and kills")
    struct EndingTests {
        @Test("an adapter that hangs gives timedOut once the timeout has passed, not much later")
        func hangTimesOut() throws {
            let process = try AdapterProcess(commandLine: Fixture.shell("hangs.sh"))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"type":"ready"}"#))
            let clock = ContinuousClock()
            let start = clock.now
            #expect(process.receive(timeout: .milliseconds(300)) == .timedOut)
            let elapsed = clock.now - start
            #expect(elapsed >= .milliseconds(300))
            #expect(elapsed < .seconds(5), "took \(elapsed)")
        }

        @Test("a zero timeout only looks at what has arrived")
        func zeroTimeoutDoesNotWait() throws {
            let process = try AdapterProcess(commandLine: Fixture.shell("hangs.sh"))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"type":"ready"}"#))
            #expect(process.receive(timeout: .zero) == .timedOut)
            #expect(process.receive(timeout: .milliseconds(-5)) == .timedOut)
        }

        @Test("an adapter that crashes gives its lines, then its exit status, and its stderr tail")
        func crashReportsStatusAndStderr() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("crashes.py"))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"type":"hello"}"#))
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(3)))
            #expect(process.stderrTail(maxLines: 2) == "log line 5\nfatal: the token store is corrupted")
            #expect(process.stderrAll.hasPrefix("log line 1\n"))
        }

        @Test("an adapter that closes its stdout and runs on shows its stdout closed while it has no exit status")
        func closedOutputWhileRunning() throws {
            let process = try AdapterProcess(commandLine: "echo '{\"type\":\"hello\"}'; exec 1>&-; exec sleep 300")
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"type":"hello"}"#))
            let deadline = ContinuousClock.now + Fixture.patience
            while !process.outputClosed && ContinuousClock.now < deadline { usleep(10_000) }
            #expect(process.outputClosed)
            // stdout is closed but the process runs: no end of stream, only silence.
            #expect(process.receive(timeout: .zero) == .timedOut)
            #expect(process.exitStatus == nil)
        }

        @Test("a command that does not exist ends with status 127 and says so on stderr")
        func missingCommand() throws {
            let process = try AdapterProcess(commandLine: "no-such-adapter-command --flag")
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(127)))
            #expect(process.stderrTail(maxLines: 1).contains("not found"))
        }

        @Test("an adapter killed by a signal reports the signal")
        func signalledStatus() throws {
            let process = try AdapterProcess(commandLine: "kill -SEGV $$")
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.signalled(SIGSEGV)))
        }

        @Test("kill() ends an adapter that ignores SIGTERM and the child it started")
        func killReachesTheProcessGroup() throws {
            let process = try AdapterProcess(commandLine: Fixture.shell("ignores_term_with_child.sh"))
            guard case .line(let line) = process.receive(timeout: Fixture.patience) else {
                Issue.record("no pids from the adapter")
                return
            }
            let pids = Fixture.integers(in: line)
            let shell = try #require(pids["shell"])
            let child = try #require(pids["child"])
            #expect(shell == process.processID)
            #expect(Fixture.isRunning(child))

            #expect(process.kill() == .signalled(SIGKILL))
            #expect(!Fixture.exists(shell), "the adapter is reaped, not a zombie")
            #expect(Fixture.waitUntilGone(child), "the adapter's child was killed with its group")
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.signalled(SIGKILL)))
            #expect(process.kill() == .signalled(SIGKILL), "a second kill() is harmless")
        }

        @Test("terminate(grace:) lets an adapter that exits at end of input finish on its own")
        func terminateLetsACleanAdapterExit() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            try process.send(line: "{}")
            #expect(process.receive(timeout: Fixture.patience) == .line("{}"))
            #expect(process.terminate(grace: Fixture.patience) == .exited(0))
        }

        @Test("terminate(grace:) kills an adapter that does not exit within the grace period")
        func terminateKillsAfterTheGracePeriod() throws {
            let process = try AdapterProcess(commandLine: Fixture.shell("ignores_term_with_child.sh"))
            guard case .line(let line) = process.receive(timeout: Fixture.patience) else {
                Issue.record("no pids from the adapter")
                return
            }
            let child = try #require(Fixture.integers(in: line)["child"])
            #expect(process.terminate(grace: .milliseconds(100)) == .signalled(SIGKILL))
            #expect(Fixture.waitUntilGone(child))
        }

        @Test("dropping the object kills and reaps the adapter: no running child, no zombie")
        func deinitLeavesNothingBehind() throws {
            var process: AdapterProcess? = try AdapterProcess(commandLine: Fixture.shell("ignores_term_with_child.sh"))
            guard case .line(let line) = process?.receive(timeout: Fixture.patience) else {
                Issue.record("no pids from the adapter")
                return
            }
            let pids = Fixture.integers(in: line)
            let shell = try #require(pids["shell"])
            let child = try #require(pids["child"])
            process = nil
            #expect(!Fixture.exists(shell))
            #expect(Fixture.waitUntilGone(child))
        }

        #if os(Linux)
        // Linux: it compares pipes by identity through /proc/PID/fd.
        @Test("a descendant that left the process group neither keeps deinit waiting nor leaks descriptors")
        func escapedDescendantDoesNotBlockDeinit() throws {
            var escaped: Int32?
            var heldPipes = Set<String>()
            do {
                let process = try AdapterProcess(commandLine: Fixture.shell("escapes_group.sh"))
                guard case .line(let line) = process.receive(timeout: Fixture.patience) else {
                    Issue.record("no pid from the adapter")
                    return
                }
                escaped = Fixture.integers(in: line)["escaped"]
                heldPipes = Fixture.standardPipes(of: try #require(escaped))
                #expect(process.kill() == .signalled(SIGKILL))
                // The escaped descendant still holds stdout and stderr open: no end of stream.
                #expect(process.receive(timeout: .milliseconds(200)) == .timedOut)
            }
            let descendant = try #require(escaped)
            #expect(Fixture.isRunning(descendant))
            #expect(heldPipes.count == 2, "stdout and stderr (the shell gives a background job /dev/null as stdin)")
            #expect(Fixture.openPipes().isDisjoint(with: heldPipes), "the readers closed their ends")
            kill(descendant, SIGKILL)
        }
        #endif
    }
}
