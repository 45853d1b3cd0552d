@testable import AdapterProcess
import ConformanceProtocol
import Testing

extension AdapterProcessTests {
    @Suite("Lines in and out")
    struct LineExchangeTests {
        @Test("lines sent to an echoing adapter come back in order")
        func echoRoundTrip() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            let lines = [#"{"type":"command","id":"c1","command":"launch"}"#, #"{"name":"Zoë €"}"#, "{}"]
            for line in lines { try process.send(line: line) }
            for line in lines {
                #expect(process.receive(timeout: Fixture.patience) == .line(line))
            }
            process.closeInput()
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
        }

        @Test("lines cut across writes, CRLF and a split character included, arrive whole")
        func linesSplitAcrossWrites() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("split_writes.py"))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"part":1}"#))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"name":"Zoë"}"#))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"c":3}"#))
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
        }

        @Test("the end of the stream is returned again on every later call")
        func endOfStreamRepeats() throws {
            let process = try AdapterProcess(commandLine: "echo one; exit 4")
            #expect(process.receive(timeout: Fixture.patience) == .line("one"))
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(4)))
            #expect(process.receive(timeout: .zero) == .endOfStream(.exited(4)))
            #expect(process.exitStatus == .exited(4))
        }

        @Test("a line of almost 1 MiB goes out and comes back whole")
        func largeLineRoundTrip() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            let line = #"{"pad":""# + String(repeating: "é", count: 500_000) + #""}"#
            #expect(line.utf8.count > 1_000_000 && line.utf8.count <= JSONLineFramer.defaultMaximumLineLength)
            try process.send(line: line)
            #expect(process.receive(timeout: Fixture.patience) == .line(line))
        }

        @Test("an adapter writing far more than the runner queues is read to the end, every line in order")
        func floodedStdoutIsReadWithBackpressure() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("floods_stdout.py"))
            let expected = #"{"pad":""# + String(repeating: "p", count: 1013) + #""}"#
            var count = 0
            while case .line(let line) = process.receive(timeout: Fixture.patience) {
                if line != expected {
                    Issue.record("line \(count + 1) differs")
                    break
                }
                count += 1
            }
            #expect(count == 20 * 1024)
            #expect(process.receive(timeout: .zero) == .endOfStream(.exited(0)))
        }

        @Test("an adapter that writes bytes that are not UTF-8 gives its good lines, then a framing error")
        func garbageOnStdoutIsAFramingError() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("writes_garbage.py"))
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"type":"hello"}"#))
            let expected = AdapterProcess.Received.framingError(FramingError(.invalidUTF8, line: 2, byteCount: 11))
            #expect(process.receive(timeout: Fixture.patience) == expected)
            #expect(process.receive(timeout: .zero) == expected, "the error is returned again, the line after it never")
        }

        @Test("a line over the limit is reported as soon as the limit is crossed, while the adapter still runs")
        func overlongLineIsReportedWithoutWaitingForItsEnd() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("writes_long_line.py"), maximumLineLength: 1024)
            #expect(process.receive(timeout: Fixture.patience) == .framingError(FramingError(.lineTooLong, line: 1, byteCount: 1025, limit: 1024)))
            #expect(process.exitStatus == nil)
        }

        @Test("a last line cut off by the end of stdout is a truncated line")
        func truncatedLastLine() throws {
            let process = try AdapterProcess(commandLine: #"printf '{"a":1}\n{"b"'"#)
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"a":1}"#))
            #expect(process.receive(timeout: Fixture.patience) == .framingError(FramingError(.truncatedLine, line: 2, byteCount: 4)))
        }

        @Test("the environment given replaces the runner's")
        func environmentIsPassed() throws {
            let process = try AdapterProcess(commandLine: #"echo "$GREETING-${HOME:-unset}""#, environment: ["GREETING": "hi"])
            #expect(process.receive(timeout: Fixture.patience) == .line("hi-unset"))
        }

        @Test("the adapter starts with no standard signal ignored, although the runner ignores SIGPIPE")
        func childSignalsAreReset() throws {
            let process = try AdapterProcess(commandLine: "exec grep SigIgn /proc/self/status")
            guard case .line(let line) = process.receive(timeout: Fixture.patience) else {
                Issue.record("no SigIgn line")
                return
            }
            // Signals 1 to 31 are the low bits. glibc's posix_spawn always leaves its internal signals 32
            // and 33 ignored, which no adapter notices.
            let ignored = try #require(UInt64(line.dropFirst("SigIgn:\t".count), radix: 16))
            #expect(ignored & 0x7FFF_FFFF == 0, "\(line)")
        }
    }
}
