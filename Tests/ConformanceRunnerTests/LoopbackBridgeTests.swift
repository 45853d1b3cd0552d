import ConformanceProtocol
@testable import ConformanceRunner
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The runner side of loopback mode: requests on the socket become the same `http` messages effects are.
@Suite("Loopback bridge")
struct LoopbackBridgeTests {
    @Test("requests on the socket become http messages: cause from the header, transport headers dropped, JSON bodies, canonical order")
    func requestsBecomeHTTPMessages() throws {
        let bridge = try LoopbackBridge(timeout: .seconds(5))
        defer { bridge.stop() }
        let port = try #require(UInt16(bridge.baseURL.split(separator: ":").last ?? ""))
        let login = try BlockingClient(port: port)
        let body = #"{"email":"a@example.com","password":"secret"}"#
        login.send("POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Conformance-Cause: c2\r\nUser-Agent: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let inbox = try BlockingClient(port: port)
        inbox.send("GET /resources/inbox HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer at#1\r\nX-Conformance-Cause: c1\r\nAccept: a\r\nAccept: b\r\n\r\n")

        let messages = try bridge.collect(started: 2)
        #expect(messages.map(\.effectID) == ["loopback-1", "loopback-2"])
        guard case .http(let firstID, let firstCause, let first) = messages[0],
              case .http(let secondID, let secondCause, let second) = messages[1] else {
            Issue.record("not http messages: \(messages)")
            return
        }
        // Canonical order: by the message without its id, so the GET (cause c1) comes first.
        #expect(firstCause == "c1")
        #expect(first == HTTPRequestMessage(method: "GET", path: "/resources/inbox",
                                            headers: ["authorization": "Bearer at#1", "accept": "a, b"]))
        #expect(secondCause == "c2")
        #expect(second.headers == ["content-type": "application/json", "user-agent": "test"])
        #expect(second.body == ["email": "a@example.com", "password": "secret"])
        #expect(bridge.owns(firstID) && bridge.owns(secondID))
        #expect(bridge.answered == 0)

        bridge.answer(firstID, .response(HTTPResponseMessage(status: 401, headers: ["www-authenticate": "Bearer"], body: ["error": "invalid_token"])))
        #expect(inbox.readAll().hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
        bridge.answer(secondID, .failure(ErrorInfo(code: "timeout", definite: false)))
        #expect(login.readAll().isEmpty)  // a reset: no response at all
        #expect(bridge.answered == 2)
        #expect(!bridge.owns(firstID))
    }

    @Test("a request tagged X-Conformance-Request is found by its tag, the tag is left out of its headers, and once abandoned it is never answered")
    func taggedRequestCanBeAbandoned() throws {
        let bridge = try LoopbackBridge(timeout: .seconds(5))
        defer { bridge.stop() }
        let port = try #require(UInt16(bridge.baseURL.split(separator: ":").last ?? ""))
        let refresh = try BlockingClient(port: port)
        refresh.send("POST /auth/refresh HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Conformance-Request: r3\r\nContent-Length: 0\r\n\r\n")
        let messages = try bridge.collect(started: 1)
        guard case .http(let id, _, let request)? = messages.first else {
            Issue.record("not an http message: \(messages)")
            return
        }
        #expect(request.headers.isEmpty)
        #expect(bridge.exchangeID(tagged: "r3") == id)
        #expect(bridge.exchangeID(tagged: "r4") == nil)
        bridge.abandon(id)
        #expect(!bridge.owns(id))
        bridge.answer(id, .response(HTTPResponseMessage(status: 200)))
        #expect(bridge.answered == 0)
    }

    @Test("a barrier answer that claims requests the server never gets is a hang, bounded by the timeout")
    func missingRequestsHang() throws {
        let bridge = try LoopbackBridge(timeout: .milliseconds(200))
        defer { bridge.stop() }
        #expect(throws: AdapterFailure.self) { try bridge.collect(started: 1) }
        do {
            _ = try bridge.collect(started: 1)
        } catch {
            #expect(error.code == .hung)
        }
    }

    @Test("in loopback mode a barrier answer without httpStarted and an http effect are protocol violations")
    func protocolViolations() throws {
        let bridge = try LoopbackBridge(timeout: .seconds(1))
        defer { bridge.stop() }
        do {
            _ = try bridge.collect(started: nil)
            Issue.record("accepted a barrier answer without httpStarted")
        } catch {
            #expect(error.code == .protocolViolation)
        }
        do {
            try bridge.admit(.http(id: "e1", cause: nil, HTTPRequestMessage(method: "GET", path: "/me")))
            Issue.record("accepted an http effect")
        } catch {
            #expect(error.code == .protocolViolation)
        }
        do {
            try bridge.admit(.sleep(id: "loopback-1", seconds: 1))
            Issue.record("accepted a reserved id")
        } catch {
            #expect(error.code == .protocolViolation)
        }
        try bridge.admit(.sleep(id: "e2", seconds: 1))
    }
}

/// A blocking TCP client: writes a request, reads until the server closes or resets (or 5 s pass).
private final class BlockingClient {
    let fd: Int32

    init(port: UInt16) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Everything until the first response is complete (by content-length) or the connection ends.
    func readAll() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n"),
               let lengthLine = text[..<end.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
               let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
               text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
