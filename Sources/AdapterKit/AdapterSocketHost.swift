import Foundation

public import ConformanceProtocol

/// Hosts a client inside an app or a test on a simulator, an emulator or a device: it connects to a runner started
/// with `run --listen HOST:PORT` and speaks protocol v1 over that connection (docs/adapter-protocol.md, Socket
/// transport). One call is one client instance: it returns when the runner closes the connection, which is how a
/// kill ends the instance when the runner has no kill command; an app relaunched by `--launch` calls it again.
public enum AdapterSocketHost {
    public struct ConnectionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to `host` (dotted IPv4) and `port`, then serves the client `make` returns until the connection ends.
    /// A line that is not a runner message ends it too, with the error thrown.
    public static func serve(host: String, port: UInt16, make: () -> any InProcessClient, declaresReset: Bool = false) throws {
        let descriptor = try connect(host: host, port: port)
        defer { close(descriptor) }
        try AdapterHost.serve(make: make, declaresReset: declaresReset, input: descriptor, output: descriptor, socket: true)
    }

    private static func connect(host: String, port: UInt16) throws(ConnectionError) -> Int32 {
        let address = TCPAddress(host: host, port: port)
        guard address.withSocketAddress({ _, _ in true }) != nil else {
            throw ConnectionError(description: "'\(host)' is not an IPv4 address")
        }
        let descriptor = TCPAddress.streamSocket()
        guard descriptor >= 0 else { throw ConnectionError(description: "socket: \(String(cString: strerror(errno)))") }
        #if canImport(Darwin)
        // A write to a connection the runner closed must fail, not raise SIGPIPE in the app.
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let connected = address.withSocketAddress { Foundation.connect(descriptor, $0, $1) } ?? -1
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ConnectionError(description: "cannot connect to \(host):\(port): \(reason)")
        }
        return descriptor
    }
}
