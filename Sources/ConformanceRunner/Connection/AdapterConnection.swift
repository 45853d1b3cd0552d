import ConformanceProtocol

/// Why the runner lost its client: the adapter crashed, hung, or broke the protocol.
/// Becomes an `error` verdict for the case, with the adapter's stderr tail; the run goes on.
public struct AdapterFailure: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case crashed
        case hung
        case protocolViolation
        case versionMismatch
        case notRunning
        /// The run was stopped by SIGINT or SIGTERM while the case ran.
        case interrupted
    }

    public let code: Code
    public let message: String
    public let stderrTail: String

    public init(_ code: Code, _ message: String, stderrTail: String = "") {
        self.code = code
        self.message = message
        self.stderrTail = stderrTail
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// One running instance of the client under test, as the runner talks to it.
public protocol AdapterConnection: AnyObject {
    func send(_ message: RunnerMessage) throws(AdapterFailure)
    /// The next message from the client. Throws when it crashed, hung past the timeout, or sent garbage.
    func receive() throws(AdapterFailure) -> AdapterMessage
    /// Ends the client at once, as SIGKILL would; nothing it buffered is delivered.
    func kill()
    /// What the client wrote to its own log (stderr), bounded; scanned for tokens. Whole up to the moment it is
    /// read: lines still in a pipe are waited for, briefly.
    var capturedLog: String { get }
    /// A new step begins: the time the step may take starts now.
    func beginStep()
    /// The case is over: the client is stopped, or, when it declared `reset` and is healthy, kept for the next
    /// case (see `ProcessAdapterLauncher`).
    func release()
}

extension AdapterConnection {
    public func beginStep() {}
    public func release() { kill() }
}

/// Starts a fresh instance of the client: at the start of a case and after a kill.
public protocol AdapterLauncher: Sendable {
    /// A short description for reports: the command line, or "in-process reference".
    var description: String { get }
    func launch() throws(AdapterFailure) -> any AdapterConnection
    /// `reusing`: the first instance of a case, which may be an idle process reset for it. After a kill the
    /// runner asks for a new process (`reusing: false`), so process death stays real.
    func launch(reusing: Bool) throws(AdapterFailure) -> any AdapterConnection
    /// The run is over: stops the processes kept for reuse.
    func stopIdle()
    /// Whether a released instance's process is kept and reset for the next one (an adapter that declared `reset`).
    var reusesProcesses: Bool { get }
    /// Whether its clients run in processes of their own (an explore worker then keeps them on its CPU).
    var startsProcesses: Bool { get }
}

extension AdapterLauncher {
    public func launch(reusing: Bool) throws(AdapterFailure) -> any AdapterConnection { try launch() }
    public func stopIdle() {}
    public var reusesProcesses: Bool { false }
    public var startsProcesses: Bool { false }
}

/// Where a case's client instances come from, for a launcher that keeps processes for reuse.
public enum ClientRestarts: Sendable {
    /// A case's first instance may be an idle process reset for it; every kill starts a new process (`run`).
    case processDeaths
    /// As `processDeaths`, but a kill ends the client instance and the relaunch resets the process (`explore`).
    case resets
    /// Every instance is a new process, the first one too: nothing is reused (`explore` confirming a failure).
    case newProcesses
}
