#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ConformanceProtocol

/// Why a socket could not be opened or used, in the system's words.
public struct AdapterSocketError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ what: String, code: Int32 = errno) {
        description = "\(what): \(String(cString: strerror(code)))"
    }

    init(message: String) {
        description = message
    }
}

/// A TCP socket listening on an IPv4 address for clients that speak protocol v1 over the network (an app on a
/// simulator, an emulator or a device) instead of on an adapter process's stdin and stdout.
public final class AdapterListener: @unchecked Sendable {
    // @unchecked: the descriptor is set once in init and closed in deinit; accept(2) is safe from any thread.
    private let descriptor: Int32
    public let host: String
    public let port: UInt16

    /// Binds and listens on `host` (dotted IPv4, such as 127.0.0.1 or 0.0.0.0) and `port` (0: any free port,
    /// then `port` is the one bound).
    public init(host: String, port: UInt16) throws(AdapterSocketError) {
        BrokenPipeSignal.ignore()
        let address = TCPAddress(host: host, port: port)
        guard address.withSocketAddress({ _, _ in true }) != nil else {
            throw AdapterSocketError(message: "'\(host)' is not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)")
        }
        let fd = TCPAddress.streamSocket()
        guard fd >= 0 else { throw AdapterSocketError("socket") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSocketAddress { bind(fd, $0, $1) } ?? -1
        guard bound == 0, listen(fd, 4) == 0 else {
            let code = errno
            close(fd)
            throw AdapterSocketError("cannot listen on \(host):\(port)", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        self.host = host
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    deinit {
        close(descriptor)
    }

    /// The next client that connects within `timeout`; nil when none did.
    public func accept(timeout: Duration) throws(AdapterSocketError) -> AdapterSocket? {
        guard try LineIO.wait(descriptor, for: Int16(POLLIN), timeout: timeout) else { return nil }
        let client = systemAccept(descriptor)
        guard client >= 0 else { throw AdapterSocketError("accept") }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return AdapterSocket(descriptor: client)
    }
}

/// accept(2), under a name the listener's own `accept` does not shadow.
private func systemAccept(_ fd: Int32) -> Int32 {
    accept(fd, nil, nil)
}

/// One client's connection: JSON lines both ways.
public final class AdapterSocket {
    private let descriptor: Int32
    private var framer = JSONLineFramer()
    /// What one read(2) fills; kept, so a read allocates nothing.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var pending: [String] = []
    private var ended: Received?
    private var closed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    public enum Received: Sendable, Equatable {
        case line(String)
        case timedOut
        /// The client closed the connection (or it broke).
        case closed
        case framingError(FramingError)
    }

    /// Writes every line, each followed by `\n`, waiting for room at most `timeout` in all.
    public func send(lines: [String], timeout: Duration) throws(AdapterSocketError) {
        var bytes: [UInt8] = []
        for line in lines {
            do throws(JSONLineWriteError) {
                bytes += try JSONLineWriter.frame(line, maximumLineLength: JSONLineFramer.defaultMaximumLineLength)
            } catch {
                throw AdapterSocketError(message: "the runner could not frame a line: \(error.description)")
            }
        }
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < bytes.count {
            guard try LineIO.wait(descriptor, for: Int16(POLLOUT), timeout: deadline - .now) else {
                throw AdapterSocketError(message: "the client read nothing for \(timeout)")
            }
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw AdapterSocketError("write")
            }
            offset += written
        }
    }

    /// The next line, waiting at most `timeout`.
    public func receive(timeout: Duration) -> Received {
        let deadline = ContinuousClock.now + timeout
        while true {
            if !pending.isEmpty { return .line(pending.removeFirst()) }
            if let ended { return ended }
            let ready: Bool
            do { ready = try LineIO.wait(descriptor, for: Int16(POLLIN), timeout: max(.zero, deadline - .now)) } catch {
                ended = .closed
                continue
            }
            guard ready else { return .timedOut }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                ended = .closed
                continue
            }
            do {
                pending += try framer.feed(buffer[..<count])
            } catch {
                ended = .framingError(error)
            }
        }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        _ = systemClose(descriptor)
    }
}

/// close(2), under a name `AdapterSocket.close` does not shadow.
private func systemClose(_ fd: Int32) -> Int32 {
    close(fd)
}

enum LineIO {
    /// poll(2) on one descriptor: whether `events` happened within `timeout`; throws on a hang-up without data or
    /// an error.
    static func wait(_ fd: Int32, for events: Int16, timeout: Duration) throws(AdapterSocketError) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            let result = poll(&entry, 1, max(0, milliseconds))
            if result < 0 {
                if errno == EINTR { continue }
                throw AdapterSocketError("poll")
            }
            if result == 0 { return false }
            if entry.revents & events != 0 { return true }
            if entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { throw AdapterSocketError(message: "the connection ended") }
            return false
        }
    }
}
