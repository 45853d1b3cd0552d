@testable import ConformanceRunner
import LoopbackHTTP
import Testing

/// A relaunched process is served at the case's port; if another socket holds it, at a new one, told in the trace,
/// never an error for the client.
@Suite("Loopback port across a relaunch")
struct LoopbackRebindTests {
    @Test("a free case port is bound again")
    func samePort() throws {
        let first = try LoopbackBridge(timeout: .seconds(2))
        let port = first.port
        first.stop()
        var notes: [String] = []
        let again = try ClientDriver.rebind(port, timeout: .seconds(2)) { notes.append($0) }
        defer { again.stop() }
        #expect(again.port == port)
        #expect(notes.isEmpty)
    }

    @Test("a case port another socket holds gives a new port and a note, not an error")
    func takenPort() throws {
        let holder = try LoopbackHTTPServer()
        defer { holder.stop() }
        var notes: [String] = []
        let bridge = try ClientDriver.rebind(holder.port, timeout: .seconds(2)) { notes.append($0) }
        defer { bridge.stop() }
        #expect(bridge.port != holder.port)
        #expect(notes == ["the case's loopback port \(holder.port) was taken while no process served it; the relaunched process is served at port \(bridge.port)"])
    }
}
