@testable import AdapterProcess
import Testing

extension AdapterProcessTests {
    @Suite("The log is read to where the adapter's answer was written")
    struct StderrSyncTests {
        /// The runner reads a client's log right after its last answer. On one CPU with the adapter and its reader
        /// threads (`CPUPinning`), the stderr reader may not have run yet: `syncStderr` waits until it has.
        @Test("after an answer, syncStderr returns once every log byte written before the answer is kept")
        func logBeforeAnswerIsRead() throws {
            let cpu = CPUPinning.currentMask()?.cpus.last
            let saved = cpu.flatMap(CPUPinning.pinCurrentThread(to:))
            defer { saved.map(CPUPinning.restore) }
            let process = try AdapterProcess(commandLine: Fixture.python("logs_then_answers.py"))
            var written = 0
            for round in 1...400 {
                let size = round % 2 == 0 ? 60_000 : 1 + round
                try process.send(line: String(size))
                #expect(process.receive(timeout: Fixture.patience) == .line(String(size)))
                #expect(process.syncStderr(timeout: Fixture.patience))
                written += size
                #expect(process.stderrByteCount == written, "round \(round)")
            }
            process.closeInput()
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
            #expect(process.syncStderr(timeout: .zero), "a log at its end needs no wait")
        }

        @Test("an adapter that never stops logging does not hold the wait past its timeout")
        func endlessLogEndsAtTheTimeout() throws {
            let process = try AdapterProcess(commandLine: "exec yes 'a log line that never ends' >&2")
            defer { _ = process.kill() }
            let logging = ContinuousClock.now + Fixture.patience
            while process.stderrByteCount == 0, ContinuousClock.now < logging { _ = process.receive(timeout: .milliseconds(10)) }
            let started = ContinuousClock.now
            process.syncStderr(timeout: .milliseconds(200))
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(process.exitStatus == nil)
        }
    }
}
