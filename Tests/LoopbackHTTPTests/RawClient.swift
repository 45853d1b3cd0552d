#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A blocking TCP client for the tests: writes raw bytes and reads raw responses, with a receive timeout.
final class RawClient {
    struct Response: Equatable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    enum ReadEnd: Equatable {
        case closed
        case reset
        case timedOut
    }

    let fd: Int32
    private var pending: [UInt8] = []

    init(port: UInt16, receiveTimeout: Double = 5) throws {
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
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: .init((receiveTimeout - receiveTimeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { sendWithoutSignal(fd, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Reads one response (content-length framed); nil when the connection ended first.
    func readResponse() -> Response? {
        while true {
            if let end = headerEnd() {
                let head = String(decoding: pending[0..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                var headers: [String: String] = [:]
                for line in lines where !line.isEmpty {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers[parts[0].lowercased()] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while pending.count < end + 4 + length {
                    guard fill() else { return nil }
                }
                let body = String(decoding: pending[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                pending.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard fill() else { return nil }
        }
    }

    /// Reads until the connection ends; how it ended.
    func readEnd() -> ReadEnd {
        while true {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count == 0 { return .closed }
            if errno == ECONNRESET { return .reset }
            if errno == EINTR { continue }
            return .timedOut
        }
    }

    private func headerEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: buffer[0..<count])
        return true
    }
}

private func sendWithoutSignal(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    #else
    Darwin.send(fd, pointer, count, 0)
    #endif
}
