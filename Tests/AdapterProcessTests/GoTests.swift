@testable import AdapterProcess
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AdapterProcessTests {
    /// An adapter's command starts only once the runner says go, after starting the group's guard: a runner that
    /// dies in between leaves an adapter that ends without running anything.
    @Suite("The go before an adapter's command")
    struct GoTests {
        /// Spawns `touch MARKER` behind the go prefix; `go` says whether the runner writes the line or dies first
        /// (closes the pipe unwritten). Returns the shell's exit status and whether the command ran.
        static func spawn(go: Bool) throws -> (status: Int32, ran: Bool) {
            let marker = FileManager.default.temporaryDirectory.appendingPathComponent("go-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: marker) }
            let pipe = try PipeDescriptors.make(lowest: ProcessLauncher.goDescriptor + 1)
            let null = open("/dev/null", O_RDWR | O_CLOEXEC)
            defer { close(null) }
            let processID = try ProcessLauncher.spawn(commandLine: "touch '\(marker.path)'", environment: nil,
                                                      stdin: null, stdout: null, stderr: null, go: pipe.readEnd)
            closeDescriptor(pipe.readEnd)
            if go {
                var line: UInt8 = 10
                _ = write(pipe.writeEnd, &line, 1)
            }
            closeDescriptor(pipe.writeEnd)
            var raw: Int32 = 0
            while waitpid(processID, &raw, 0) < 0 && errno == EINTR {}
            return ((raw >> 8) & 0xff, FileManager.default.fileExists(atPath: marker.path))
        }

        @Test("with the go written, the command runs")
        func goRunsTheCommand() throws {
            let (status, ran) = try Self.spawn(go: true)
            #expect(status == 0)
            #expect(ran)
        }

        @Test("with the go pipe closed unwritten (the runner died before the guard), the shell exits 1 and runs nothing")
        func noGoRunsNothing() throws {
            let (status, ran) = try Self.spawn(go: false)
            #expect(status == 1)
            #expect(!ran)
        }

        @Test("the command does not see the go descriptor")
        func commandDoesNotSeeDescriptorThree() throws {
            let pipe = try PipeDescriptors.make(lowest: ProcessLauncher.goDescriptor + 1)
            let output = try PipeDescriptors.make()
            let null = open("/dev/null", O_RDWR | O_CLOEXEC)
            defer { close(null) }
            let processID = try ProcessLauncher.spawn(commandLine: "if [ -e /proc/self/fd/3 ] || (: <&3) 2>/dev/null; then echo open; else echo closed; fi",
                                                      environment: nil, stdin: null, stdout: output.writeEnd, stderr: null, go: pipe.readEnd)
            closeDescriptor(pipe.readEnd)
            closeDescriptor(output.writeEnd)
            var line: UInt8 = 10
            _ = write(pipe.writeEnd, &line, 1)
            closeDescriptor(pipe.writeEnd)
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(output.readEnd, &buffer, buffer.count)
            closeDescriptor(output.readEnd)
            var raw: Int32 = 0
            while waitpid(processID, &raw, 0) < 0 && errno == EINTR {}
            #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "closed\n")
        }
    }
}
