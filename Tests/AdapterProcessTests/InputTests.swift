@testable import AdapterProcess
import Foundation
import Testing

extension AdapterProcessTests {
    @Suite("Writing to stdin")
    struct InputTests {
        @Test("writing to an adapter that has exited is an error, not a crash, and stays one")
        func writingAfterExitIsABrokenPipe() throws {
            let process = try AdapterProcess(commandLine: "exit 0")
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
            let error = try #require(throws: AdapterProcessError.self) { try process.send(line: "{}") }
            #expect(error.code == .brokenPipe)
            #expect(error.systemError == EPIPE)
            #expect(throws: error) { try process.send(line: "{}") }
        }

        @Test("writing to a killed adapter is an error, not a crash")
        func writingAfterKillIsABrokenPipe() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            process.kill()
            let error = try #require(throws: AdapterProcessError.self) { try process.send(line: "{}") }
            #expect(error.code == .brokenPipe)
        }

        @Test("a line with a line break is refused before anything is written")
        func invalidLineIsRefused() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            let error = try #require(throws: AdapterProcessError.self) { try process.send(line: "{}\n{}") }
            #expect(error.code == .invalidLine)
            try process.send(line: #"{"after":true}"#)
            #expect(process.receive(timeout: Fixture.patience) == .line(#"{"after":true}"#))
        }

        @Test("a send to an adapter that does not read stdin times out, and stdin is unusable after")
        func sendTimesOutWhenTheAdapterDoesNotRead() throws {
            let process = try AdapterProcess(commandLine: Fixture.shell("hangs.sh"))
            let line = String(repeating: "x", count: 512 * 1024)  // far more than a pipe holds
            let error = try #require(throws: AdapterProcessError.self) {
                try process.send(line: line, timeout: .milliseconds(200))
            }
            #expect(error.code == .sendTimedOut)
            #expect(throws: error) { try process.send(line: "{}") }
        }

        @Test("after closeInput() the adapter sees end of input and sends fail")
        func closeInputEndsTheInput() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("echo_adapter.py"))
            process.closeInput()
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
            let error = try #require(throws: AdapterProcessError.self) { try process.send(line: "{}") }
            #expect(error.code == .inputClosed)
        }

        @Test("error messages say what failed and why")
        func errorDescriptions() {
            let error = AdapterProcessError(.brokenPipe, systemError: EPIPE, detail: "0 of 3 bytes written")
            #expect(error.description == "the adapter no longer reads its stdin (it closed it or ended): Broken pipe (errno 32); 0 of 3 bytes written")
        }
    }
}
