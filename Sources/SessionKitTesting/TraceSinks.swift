import SessionKit

/// The log, UI and transition sinks of one process: they append to the world trace (nothing once the
/// process is killed).
public struct TraceSinks: LogSink, UISink, SessionEventSink {
    let trace: WorldTrace
    let process: ProcessHandle

    /// Appends the record to the trace.
    public func log(_ record: LogRecord) {
        guard process.isAlive else { return }
        trace.append(.log(record), process: process.id)
    }

    /// Appends the UI event to the trace.
    public func present(_ event: UIEvent) {
        guard process.isAlive else { return }
        trace.append(.ui(event), process: process.id)
    }

    /// Appends the transition to the trace.
    public func record(_ transition: SessionTransition) {
        guard process.isAlive else { return }
        trace.append(.transition(transition), process: process.id)
    }
}
