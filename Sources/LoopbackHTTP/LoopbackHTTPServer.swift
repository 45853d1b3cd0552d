import POSIXSync
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that decides nothing: it reads requests and hands them over
/// (``takeRequests()``), and writes each response when its owner says so (``respond(to:with:)``), or
/// resets the connection instead (``reset(_:)``). One thread runs every connection with `poll(2)`.
///
/// Bounded: request line, header section, header count and body sizes are limited (``LoopbackLimits``),
/// a request must arrive within a timeout, idle kept-alive connections are closed, and so is every
/// connection over the limit. Bodies are framed by `content-length` only: `transfer-encoding` is answered
/// 411. A malformed request is answered 400 by the server itself, logged (``takeLog()``) and counted;
/// its connection is closed. Keep-alive and pipelining follow HTTP/1.1: responses go out in request order.
public final class LoopbackHTTPServer: Sendable {
    public let port: UInt16
    private let shared: SharedState
    private let wakeWrite: Int32

    /// Binds 127.0.0.1 at `port` (0: an ephemeral port) and starts serving.
    public init(port: UInt16 = 0, limits: LoopbackLimits = LoopbackLimits()) throws(LoopbackServerError) {
        let (listener, port) = try Socket.listenOnLoopback(port: port, backlog: 1024)
        let wakeRead: Int32
        let wakeWrite: Int32
        do {
            (wakeRead, wakeWrite) = try Socket.wakePipe()
        } catch {
            close(listener)
            throw error
        }
        self.port = port
        self.wakeWrite = wakeWrite
        let shared = SharedState()
        self.shared = shared
        let thread = Thread {
            EventLoop(listener: listener, wakeRead: wakeRead, limits: limits, shared: shared).run()
        }
        thread.name = "loopback-http-\(port)"
        thread.start()
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Requests received so far: complete ones plus those the server refused (400, 408, 411, 413, 414,
    /// 431, 505).
    public var receivedCount: Int { shared.lock.withLock { shared.received } }

    /// Responses decided so far: those given to ``respond(to:with:)`` or ``reset(_:)`` plus the server's
    /// own refusals.
    public var answeredCount: Int { shared.lock.withLock { shared.answered } }

    /// Waits until ``receivedCount`` reaches `count` or `timeout` passes; returns the count then.
    public func waitForReceived(atLeast count: Int, timeout: Duration) -> Int {
        let deadline = MonotonicDeadline.after(timeout)
        return shared.lock.withLock {
            _ = shared.lock.wait(until: deadline) { shared.received >= count }
            return shared.received
        }
    }

    /// The complete requests received since the last call, in the order they were completed.
    public func takeRequests() -> [LoopbackHTTPRequest] {
        shared.lock.withLock {
            defer { shared.arrived = [] }
            return shared.arrived
        }
    }

    /// What the server noticed since the last call: refused requests, connection errors.
    public func takeLog() -> [String] {
        shared.lock.withLock {
            defer { shared.log = [] }
            return shared.log
        }
    }

    /// Writes the response of an exchange (after the responses of earlier requests on its connection).
    /// Nothing happens when the client has gone.
    public func respond(to exchange: Int, with response: LoopbackHTTPResponse) {
        enqueue(exchange, response)
    }

    /// Answers an exchange with no response at all: its connection is reset (TCP RST), as when a network
    /// drops. Other requests pipelined on that connection are lost with it.
    public func reset(_ exchange: Int) {
        enqueue(exchange, nil)
    }

    /// Closes every connection and the listening socket, and ends the thread. Idempotent.
    public func stop() {
        let first = shared.lock.withLock {
            defer { shared.stopping = true }
            return !shared.stopping
        }
        guard first else { return }
        wake()
        let deadline = MonotonicDeadline.after(.seconds(5))
        shared.lock.withLock { _ = shared.lock.wait(until: deadline) { shared.stopped } }
        close(wakeWrite)
    }

    private func enqueue(_ exchange: Int, _ response: LoopbackHTTPResponse?) {
        shared.lock.withLock {
            shared.commands.append((exchange, response))
            shared.answered += 1
            shared.lock.broadcast()
        }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }
}

/// What the caller's threads and the event loop share; every field is read and written under `lock`.
final class SharedState: @unchecked Sendable {
    let lock = ConditionLock()
    var arrived: [LoopbackHTTPRequest] = []
    var received = 0
    var answered = 0
    var nextExchange = 0
    var log: [String] = []
    /// Answers to carry out: a response, or nil for a reset.
    var commands: [(exchange: Int, response: LoopbackHTTPResponse?)] = []
    var stopping = false
    var stopped = false
}

/// The server's thread: accepts, reads, parses, writes and times out every connection.
private final class EventLoop {
    final class Connection {
        let fd: Int32
        let number: Int
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        /// Exchanges waiting for their response, in request order; refusals have negative numbers.
        var order: [Int] = []
        var ready: [Int: [UInt8]] = [:]
        /// The exchange whose response is the connection's last (`connection: close`, or a refusal).
        var last: Int?
        /// The peer closed its side: nothing more to read.
        var peerClosed = false
        /// After the last response went out: discard input until this deadline, then close.
        var lingerUntil: UInt64?
        /// When the first byte of the request being read arrived.
        var requestStarted: UInt64?
        var lastActivity: UInt64

        init(fd: Int32, number: Int, now: UInt64) {
            self.fd = fd
            self.number = number
            lastActivity = now
        }

        var hasOutput: Bool { written < output.count }
    }

    private let listener: Int32
    private let wakeRead: Int32
    private let limits: LoopbackLimits
    private let shared: SharedState
    private var connections: [Int32: Connection] = [:]
    private var owners: [Int: Int32] = [:]
    private var connectionCounter = 0
    private var refusalCounter = 0
    private var acceptPausedUntil: UInt64 = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(listener: Int32, wakeRead: Int32, limits: LoopbackLimits, shared: SharedState) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.limits = limits
        self.shared = shared
    }

    func run() {
        while true {
            if shared.lock.withLock({ shared.stopping }) {
                shutDown()
                return
            }
            let now = MonotonicDeadline.now()
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let accepting = connections.count < limits.maxConnections && now >= acceptPausedUntil
            if accepting { fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            let watched = Array(connections.values)
            for connection in watched {
                var events: Int16 = 0
                if !connection.peerClosed { events |= Int16(POLLIN) }
                if connection.hasOutput { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
            }
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout(now: now))
            if ready < 0 && errno != EINTR { Thread.sleep(forTimeInterval: 0.001) }
            if ready > 0 {
                if fds[0].revents != 0 { drainWakePipe() }
                var next = 1
                if accepting {
                    if fds[1].revents != 0 { acceptConnections() }
                    next = 2
                }
                for (offset, connection) in watched.enumerated() {
                    let revents = fds[next + offset].revents
                    guard revents != 0, connections[connection.fd] === connection else { continue }
                    service(connection, revents: revents)
                }
            }
            carryOutCommands()
            expire(now: MonotonicDeadline.now())
        }
    }

    // MARK: Connections

    private func acceptConnections() {
        while connections.count < limits.maxConnections {
            let (fd, error) = Socket.acceptOne(listener)
            guard let fd else {
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    note("loopback: cannot accept a connection (\(Socket.describe(error))); retrying shortly")
                    acceptPausedUntil = MonotonicDeadline.now() + 100_000_000
                }
                return
            }
            connectionCounter += 1
            connections[fd] = Connection(fd: fd, number: connectionCounter, now: MonotonicDeadline.now())
        }
    }

    private func service(_ connection: Connection, revents: Int16) {
        if revents & Int16(POLLOUT) != 0 { flush(connection) }
        if revents & Int16(POLLIN) != 0 { read(connection) }
        guard connections[connection.fd] === connection else { return }
        if revents & (Int16(POLLERR) | Int16(POLLNVAL)) != 0
            || (revents & Int16(POLLHUP) != 0 && revents & Int16(POLLIN) == 0) {
            drop(connection)
        }
    }

    private func read(_ connection: Connection) {
        var total = 0
        while total < 256 * 1024 {
            let count = readBuffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                total += count
                connection.lastActivity = MonotonicDeadline.now()
                if connection.lingerUntil == nil && connection.last == nil {
                    if connection.input.isEmpty { connection.requestStarted = connection.lastActivity }
                    connection.input.append(contentsOf: readBuffer[0..<count])
                }
                continue
            }
            if count == 0 {
                connection.peerClosed = true
                if connection.lingerUntil != nil || (connection.order.isEmpty && !connection.hasOutput) {
                    drop(connection)
                    return
                }
                break
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            if errno == EINTR { continue }
            drop(connection)
            return
        }
        parse(connection)
    }

    private func parse(_ connection: Connection) {
        while connection.last == nil && connection.lingerUntil == nil && !connection.input.isEmpty {
            switch RequestParser.parse(connection.input[...], limits: limits) {
            case .incomplete:
                if connection.peerClosed {
                    // The client closed in the middle of a request: nothing to answer.
                    connection.input = []
                    connection.requestStarted = nil
                }
                flush(connection)
                return
            case .request(let parsed):
                connection.input.removeFirst(parsed.consumed)
                connection.requestStarted = connection.input.isEmpty ? nil : MonotonicDeadline.now()
                let exchange = shared.lock.withLock {
                    shared.nextExchange += 1
                    let request = LoopbackHTTPRequest(
                        exchange: shared.nextExchange, method: parsed.method, target: parsed.target,
                        version: parsed.version, headers: parsed.headers, body: parsed.body)
                    shared.arrived.append(request)
                    shared.received += 1
                    shared.lock.broadcast()
                    return shared.nextExchange
                }
                connection.order.append(exchange)
                owners[exchange] = connection.fd
                if !parsed.keepAlive { connection.last = exchange }
            case .reject(let status, let reason):
                refuse(connection, status: status, reason: reason)
            }
        }
        flush(connection)
    }

    /// Answers the request being read with an error status itself, counts and logs it, and ends the connection.
    private func refuse(_ connection: Connection, status: Int, reason: String) {
        refusalCounter -= 1
        let exchange = refusalCounter
        let response = LoopbackHTTPResponse(
            status: status, headers: [HTTPHeaderField("content-type", "text/plain; charset=utf-8")],
            body: Array("\(reason)\n".utf8))
        connection.order.append(exchange)
        connection.ready[exchange] = response.serialized(closing: true)
        connection.last = exchange
        connection.input = []
        connection.requestStarted = nil
        let line = "loopback: refused a request on connection \(connection.number) with \(status) \(LoopbackHTTPResponse.reason(for: status)): \(reason)"
        shared.lock.withLock {
            shared.received += 1
            shared.answered += 1
            shared.log.append(line)
            shared.lock.broadcast()
        }
        flush(connection)
    }

    /// Moves the responses that are next in line to the output, writes what the socket takes, and
    /// starts the lingering close after the connection's last response.
    private func flush(_ connection: Connection) {
        var finished = false
        while let first = connection.order.first, let bytes = connection.ready.removeValue(forKey: first) {
            connection.order.removeFirst()
            owners[first] = nil
            connection.output.append(contentsOf: bytes)
            if first == connection.last {
                finished = true
                break
            }
        }
        while connection.hasOutput {
            let count = Socket.sendSome(connection.fd, connection.output[connection.written...])
            if count < 0 {
                drop(connection)
                return
            }
            if count == 0 { break }
            connection.written += count
            connection.lastActivity = MonotonicDeadline.now()
        }
        if !connection.hasOutput {
            connection.output = []
            connection.written = 0
            if finished || (connection.last != nil && connection.order.isEmpty) {
                guard connection.lingerUntil == nil else { return }
                // Half-close and keep reading a moment, so the client reads the response before the close.
                shutdown(connection.fd, Int32(SHUT_WR))
                connection.lingerUntil = MonotonicDeadline.now() + 1_000_000_000
                if connection.peerClosed { drop(connection) }
            } else if connection.peerClosed && connection.order.isEmpty {
                drop(connection)
            }
        }
    }

    private func carryOutCommands() {
        let commands = shared.lock.withLock {
            defer { shared.commands = [] }
            return shared.commands
        }
        for (exchange, response) in commands {
            guard let fd = owners[exchange], let connection = connections[fd] else { continue }
            guard let response else {
                for pending in connection.order { owners[pending] = nil }
                connections[fd] = nil
                Socket.abort(fd)
                continue
            }
            connection.ready[exchange] = response.serialized(closing: exchange == connection.last)
            flush(connection)
        }
    }

    private func expire(now: UInt64) {
        for connection in Array(connections.values) {
            if let linger = connection.lingerUntil {
                if now >= linger { drop(connection) }
            } else if let started = connection.requestStarted, connection.last == nil,
                      now >= started + MonotonicDeadline.nanoseconds(limits.requestTimeout) {
                refuse(connection, status: 408, reason: "the request did not arrive within \(limits.requestTimeout)")
            } else if connection.order.isEmpty && connection.input.isEmpty && !connection.hasOutput
                        && now >= connection.lastActivity + MonotonicDeadline.nanoseconds(limits.idleTimeout) {
                drop(connection)
            }
        }
    }

    private func pollTimeout(now: UInt64) -> Int32 {
        var nearest = now + 1_000_000_000
        if acceptPausedUntil > now { nearest = min(nearest, acceptPausedUntil) }
        for connection in connections.values {
            if let linger = connection.lingerUntil {
                nearest = min(nearest, linger)
            } else if let started = connection.requestStarted {
                nearest = min(nearest, started + MonotonicDeadline.nanoseconds(limits.requestTimeout))
            } else if connection.order.isEmpty {
                nearest = min(nearest, connection.lastActivity + MonotonicDeadline.nanoseconds(limits.idleTimeout))
            }
        }
        return nearest <= now ? 0 : Int32(clamping: (nearest - now + 999_999) / 1_000_000)
    }

    private func drop(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        for pending in connection.order { owners[pending] = nil }
        connections[connection.fd] = nil
        close(connection.fd)
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ Socket.read(wakeRead, into: $0) }) > 0 {}
    }

    private func note(_ line: String) {
        shared.lock.withLock { shared.log.append(line) }
    }

    private func shutDown() {
        for connection in Array(connections.values) { drop(connection) }
        close(listener)
        close(wakeRead)
        shared.lock.withLock {
            shared.stopped = true
            shared.lock.broadcast()
        }
    }
}
