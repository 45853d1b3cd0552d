#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import POSIXSync

#if !canImport(Darwin)
private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
private nonisolated(unsafe) let accept4Symbol = dlsym(nil, "accept4")
private var accept4Function: Accept4? {
    accept4Symbol.map { unsafeBitCast($0, to: Accept4.self) }
}
#endif

/// read(2), under a name `Socket.read` does not shadow.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Thin wrappers over the socket calls the server makes.
enum Socket {
    static var lastError: Int32 { errno }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Closes with a TCP reset instead of an orderly FIN: what a lost connection looks like to the client.
    static func abort(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = close(fd)
    }

    /// A socket bound to 127.0.0.1:`port` that does not listen: while it is open the port is not handed out to
    /// another socket (an ephemeral port of an outgoing connection), and connecting to it is refused. Nil when the
    /// port is taken.
    static func bindOnly(port: UInt16) -> Int32? {
        try? boundOnLoopback(port: port)
    }

    /// read(2) into `buffer`: the count read, 0 at the end, -1 on an error (a wake pipe with nothing in it).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        systemRead(fd, buffer.baseAddress, buffer.count)
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// A TCP socket bound to 127.0.0.1:`port` (0: an ephemeral one), close-on-exec, with SO_REUSEADDR.
    private static func boundOnLoopback(port: UInt16) throws(LoopbackServerError) -> Int32 {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw LoopbackServerError("socket: \(describe(errno))") }
        setCloseOnExec(fd)
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError("bind 127.0.0.1:\(port): \(describe(code))")
        }
        return fd
    }

    /// A listening TCP socket on 127.0.0.1 at an ephemeral port: (descriptor, port).
    static func listenOnLoopback(port: UInt16 = 0, backlog: Int32) throws(LoopbackServerError) -> (Int32, UInt16) {
        let fd = try boundOnLoopback(port: port)
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError("listen: \(describe(code))")
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError("getsockname: \(describe(code))")
        }
        setNonBlocking(fd)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A pipe whose read end wakes the event loop: (read, write), both non-blocking and close-on-exec.
    static func wakePipe() throws(LoopbackServerError) -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw LoopbackServerError("pipe: \(describe(errno))") }
        for fd in ends {
            setNonBlocking(fd)
            setCloseOnExec(fd)
        }
        return (ends[0], ends[1])
    }

    /// Accepts one pending connection, non-blocking and close-on-exec; nil when none is waiting (or on error).
    static func acceptOne(_ listener: Int32) -> (fd: Int32?, error: Int32) {
        #if canImport(Darwin)
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return (nil, errno) }
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #else
        // accept4 sets close-on-exec atomically, so an adapter process spawned meanwhile cannot inherit the
        // connection (and keep it open after the runner closed it). Glibc's module does not export it.
        let fd: Int32
        if let accept4 = accept4Function {
            fd = accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        } else {
            fd = accept(listener, nil, nil)
        }
        guard fd >= 0 else { return (nil, errno) }
        #endif
        setNonBlocking(fd)
        setCloseOnExec(fd)
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (fd, 0)
    }

    /// Sends without raising SIGPIPE; returns bytes written, 0 when the socket would block, -1 on error.
    static func sendSome(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
        if written < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1 }
        return written
    }
}
