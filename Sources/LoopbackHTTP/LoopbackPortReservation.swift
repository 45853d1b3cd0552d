/// Keeps a loopback port from being handed out while no server listens on it: between a client process's death
/// and its relaunch, the server of a case is stopped, and the next one must bind the same port (a client keys
/// caches by the token URL). Without it an outgoing connection of any process on the machine may be given that
/// port as its ephemeral one meanwhile, and the bind fails. Connections to a reserved port are refused, as to a
/// dead server.
public final class LoopbackPortReservation: @unchecked Sendable {
    // Unchecked: the descriptor is written once, in init, and closed once, by `release()` or deinit.
    private var descriptor: Int32?
    public let port: UInt16

    /// Nil when the port is taken already.
    public init?(port: UInt16) {
        guard let descriptor = Socket.bindOnly(port: port) else { return nil }
        self.descriptor = descriptor
        self.port = port
    }

    /// Frees the port, right before a server binds it.
    public func release() {
        if let descriptor { Socket.closeDescriptor(descriptor) }
        descriptor = nil
    }

    deinit { release() }
}
