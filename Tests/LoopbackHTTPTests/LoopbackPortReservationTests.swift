import Foundation
import LoopbackHTTP
import Testing

/// Between a client process's death and its relaunch a case's port is reserved, so the next server binds it again.
@Suite("Loopback port reservation")
struct LoopbackPortReservationTests {
    @Test("a reserved port refuses connections, and a server binds it once the reservation is released")
    func reservedThenReused() throws {
        let first = try LoopbackHTTPServer()
        let port = first.port
        first.stop()
        let reservation = try #require(LoopbackPortReservation(port: port))
        #expect(throws: POSIXError.self) { _ = try RawClient(port: port) }
        reservation.release()
        let second = try LoopbackHTTPServer(port: port)
        defer { second.stop() }
        #expect(second.port == port)
        let client = try RawClient(port: port)
        client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(second.waitForReceived(atLeast: 1, timeout: .seconds(5)) == 1)
    }

    @Test("a port a server listens on cannot be reserved")
    func listeningPortIsNotReserved() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        #expect(LoopbackPortReservation(port: server.port) == nil)
    }
}
