import Foundation
@testable import LoopbackHTTP
import Testing

@Suite("Loopback HTTP server")
struct LoopbackHTTPServerTests {
    static let patience: Duration = .seconds(5)

    static func ok(_ text: String) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: 200, headers: [HTTPHeaderField("content-type", "application/json")], body: Array(text.utf8))
    }

    /// Waits for `count` requests and returns them.
    static func requests(_ server: LoopbackHTTPServer, _ count: Int) -> [LoopbackHTTPRequest] {
        var taken: [LoopbackHTTPRequest] = []
        let deadline = ContinuousClock.now + patience
        while taken.count < count && ContinuousClock.now < deadline {
            _ = server.waitForReceived(atLeast: server.receivedCount + 1, timeout: .milliseconds(50))
            taken += server.takeRequests()
        }
        return taken
    }

    @Test("binds 127.0.0.1 at an ephemeral port")
    func binds() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
    }

    @Test("a server started at the port of a stopped one, with a connection just served, serves at that port")
    func sameNextPort() throws {
        let first = try LoopbackHTTPServer()
        let port = first.port
        let client = try RawClient(port: port)
        client.send("GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let served = Self.requests(first, 1)
        try #require(served.count == 1)
        first.respond(to: served[0].exchange, with: Self.ok("{}"))
        #expect(client.readResponse()?.status == 200)
        first.stop()

        let second = try LoopbackHTTPServer(port: port)
        defer { second.stop() }
        #expect(second.port == port)
        let again = try RawClient(port: port)
        again.send("GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(Self.requests(second, 1).count == 1)
    }

    @Test("a request is handed over parsed and answered when the owner says so; keep-alive serves the next")
    func keepAlive() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("POST /auth/refresh HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Conformance-Cause: c7\r\nContent-Length: 22\r\n\r\n{\"refresh_token\":\"r1\"}")
        let first = Self.requests(server, 1)
        try #require(first.count == 1)
        #expect(first[0].method == "POST")
        #expect(first[0].target == "/auth/refresh")
        #expect(first[0].header("x-conformance-cause") == "c7")
        #expect(String(decoding: first[0].body, as: UTF8.self) == #"{"refresh_token":"r1"}"#)
        #expect(server.receivedCount == 1)
        #expect(server.answeredCount == 0)
        server.respond(to: first[0].exchange, with: Self.ok(#"{"a":1}"#))
        #expect(client.readResponse() == RawClient.Response(
            status: 200, headers: ["content-type": "application/json", "content-length": "7"], body: #"{"a":1}"#))
        #expect(server.answeredCount == 1)

        client.send("GET /me?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\n\r\n")
        let second = Self.requests(server, 1)
        try #require(second.count == 1)
        #expect(second[0].exchange == 2)
        #expect(second[0].target == "/me?x=1")
        #expect(second[0].body.isEmpty)
        server.respond(to: second[0].exchange, with: LoopbackHTTPResponse(status: 401, body: Array("{}".utf8)))
        #expect(client.readResponse()?.status == 401)
    }

    @Test("pipelined requests are answered in request order, whatever order the owner answers them in")
    func pipelining() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /one HTTP/1.1\r\nHost: h\r\n\r\nGET /two HTTP/1.1\r\nHost: h\r\n\r\n")
        let requests = Self.requests(server, 2)
        try #require(requests.map(\.target) == ["/one", "/two"])
        server.respond(to: requests[1].exchange, with: Self.ok("2"))
        server.respond(to: requests[0].exchange, with: Self.ok("1"))
        #expect(client.readResponse()?.body == "1")
        #expect(client.readResponse()?.body == "2")
    }

    @Test("connection: close ends the connection after the response; HTTP/1.0 closes by default")
    func connectionClose() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        for (version, extra) in [("HTTP/1.1", "Connection: close\r\n"), ("HTTP/1.0", "")] {
            let client = try RawClient(port: server.port)
            client.send("GET /x \(version)\r\nHost: h\r\n\(extra)\r\n")
            let request = Self.requests(server, 1)
            try #require(request.count == 1)
            server.respond(to: request[0].exchange, with: Self.ok("x"))
            let response = client.readResponse()
            #expect(response?.headers["connection"] == "close")
            #expect(client.readEnd() == .closed)
        }
    }

    @Test("a reset answers with no response at all")
    func reset() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /resources/inbox HTTP/1.1\r\nHost: h\r\n\r\n")
        let request = Self.requests(server, 1)
        try #require(request.count == 1)
        server.reset(request[0].exchange)
        #expect(client.readResponse() == nil)
        #expect(server.answeredCount == 1)
    }

    @Test("malformed requests are answered by the server, logged, counted, and their connection closed",
          arguments: [
              ("GARBAGE\r\n\r\n", 400),
              ("GET /x HTTP/1.1\r\n\r\n", 400),                                            // no host
              ("GET /x HTTP/1.1\nHost: h\n\n", 400),                                        // bare LF
              ("GET x HTTP/1.1\r\nHost: h\r\n\r\n", 400),                                   // not a path
              ("GET /x HTTP/1.1\r\nHost: h\r\nBad Header: 1\r\n\r\n", 400),                 // space in the name
              ("GET /x HTTP/1.1\r\nHost: h\r\nNo colon\r\n\r\n", 400),
              ("GET /x HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
              ("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", 400),
              ("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
              ("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n", 411),
              ("GET /x HTTP/2.0\r\nHost: h\r\n\r\n", 505),
          ])
    func malformed(request: String, status: Int) throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send(request)
        let response = client.readResponse()
        #expect(response?.status == status)
        #expect(response?.headers["connection"] == "close")
        #expect(client.readEnd() == .closed)
        #expect(server.receivedCount == 1)
        #expect(server.answeredCount == 1)
        #expect(server.takeRequests().isEmpty)
        let log = server.takeLog()
        #expect(log.count == 1)
        #expect(log.first?.contains("\(status)") == true)
    }

    @Test("limits: request line, header section, header count and body size")
    func limits() throws {
        var limits = LoopbackLimits()
        limits.maxRequestLineBytes = 100
        limits.maxHeaderBytes = 400
        limits.maxHeaderCount = 5
        limits.maxBodyBytes = 10
        let server = try LoopbackHTTPServer(limits: limits)
        defer { server.stop() }
        let cases: [(String, Int)] = [
            ("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\nHost: h\r\n\r\n", 414),
            ("GET /\(String(repeating: "a", count: 200))", 414),                              // no CRLF yet, already too long
            ("GET / HTTP/1.1\r\nHost: h\r\nX-Big: \(String(repeating: "b", count: 500))\r\n\r\n", 431),
            ("GET / HTTP/1.1\r\nHost: h\r\n" + (1...6).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", 413),
        ]
        for (request, status) in cases {
            let client = try RawClient(port: server.port)
            client.send(request)
            #expect(client.readResponse()?.status == status, "\(request.prefix(40))")
            #expect(client.readEnd() == .closed)
        }
        #expect(server.takeLog().count == cases.count)
        #expect(server.takeRequests().isEmpty)
        // At the limits exactly, everything passes.
        let client = try RawClient(port: server.port)
        client.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789")
        let request = Self.requests(server, 1)
        #expect(request.first?.body.count == 10)
    }

    @Test("bytes fed one at a time still make one request")
    func slowBytes() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let text = "POST /auth/login HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"
        for byte in text.utf8 {
            client.send([byte])
            usleep(1_000)
        }
        let request = Self.requests(server, 1)
        try #require(request.count == 1)
        #expect(request[0].target == "/auth/login")
        #expect(request[0].body == Array("{}".utf8))
        #expect(server.receivedCount == 1)
    }

    @Test("a request that does not arrive in time is answered 408 and its connection closed")
    func requestTimeout() throws {
        var limits = LoopbackLimits()
        limits.requestTimeout = .milliseconds(200)
        let server = try LoopbackHTTPServer(limits: limits)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /x HTTP/1.1\r\nHo")
        #expect(client.readResponse()?.status == 408)
        #expect(client.readEnd() == .closed)
        #expect(server.takeLog().first?.contains("408") == true)
    }

    @Test("an idle kept-alive connection is closed after the idle timeout; a pending one is not")
    func idleTimeout() throws {
        var limits = LoopbackLimits()
        limits.idleTimeout = .milliseconds(200)
        let server = try LoopbackHTTPServer(limits: limits)
        defer { server.stop() }
        let idle = try RawClient(port: server.port)
        let waiting = try RawClient(port: server.port)
        waiting.send("GET /held HTTP/1.1\r\nHost: h\r\n\r\n")
        let held = Self.requests(server, 1)
        try #require(held.count == 1)
        #expect(idle.readEnd() == .closed)
        usleep(300_000)
        server.respond(to: held[0].exchange, with: Self.ok("late"))
        #expect(waiting.readResponse()?.body == "late")
    }

    @Test("many concurrent connections are each served")
    func concurrentConnections() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let clients = try (0..<200).map { _ in try RawClient(port: server.port) }
        for (index, client) in clients.enumerated() {
            client.send("GET /resources/r\(index) HTTP/1.1\r\nHost: h\r\n\r\n")
        }
        #expect(server.waitForReceived(atLeast: 200, timeout: Self.patience) == 200)
        let requests = server.takeRequests()
        #expect(requests.count == 200)
        #expect(Set(requests.map(\.exchange)).count == 200)
        for request in requests.reversed() {
            server.respond(to: request.exchange, with: Self.ok(String(request.target.dropFirst("/resources/".count))))
        }
        for (index, client) in clients.enumerated() {
            #expect(client.readResponse()?.body == "r\(index)")
        }
    }

    @Test("an answer to a client that went away is dropped; the server keeps serving")
    func clientGone() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        var client: RawClient? = try RawClient(port: server.port)
        client?.send("GET /held HTTP/1.1\r\nHost: h\r\n\r\n")
        let held = Self.requests(server, 1)
        try #require(held.count == 1)
        client = nil
        usleep(50_000)
        server.respond(to: held[0].exchange, with: Self.ok("nobody"))
        let next = try RawClient(port: server.port)
        next.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
        let request = Self.requests(server, 1)
        try #require(request.count == 1)
        server.respond(to: request[0].exchange, with: Self.ok("yes"))
        #expect(next.readResponse()?.body == "yes")
    }

    @Test("waiting for requests is bounded by its timeout")
    func boundedWait() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let start = ContinuousClock.now
        #expect(server.waitForReceived(atLeast: 1, timeout: .milliseconds(100)) == 0)
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test("stop closes the listening socket and every connection")
    func stop() throws {
        let server = try LoopbackHTTPServer()
        let client = try RawClient(port: server.port)
        client.send("GET /held HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = Self.requests(server, 1)
        server.stop()
        #expect(client.readEnd() == .closed)
        #expect(throws: (any Error).self) { try RawClient(port: server.port) }
        server.stop()
    }
}
