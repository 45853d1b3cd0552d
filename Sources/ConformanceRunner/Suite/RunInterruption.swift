import POSIXSync

/// Whether the run was asked to stop (SIGINT or SIGTERM). Set from a signal handler's queue, read by the suite
/// runner between cases and by process connections while they wait, so the current case ends promptly.
public enum RunInterruption {
    private static let signal = Locked<Int32>(0)

    /// The signal that asked the run to stop, or nil.
    public static var requested: Int32? {
        let value = signal.current
        return value == 0 ? nil : value
    }

    /// Records the first request; later ones keep the first signal.
    public static func request(signal number: Int32) {
        signal.withLock { if $0 == 0 { $0 = number } }
    }

    /// Clears the request, for a process that runs several suites (tests).
    public static func reset() {
        signal.withLock { $0 = 0 }
    }
}

import AdapterProcess

extension RunInterruption {
    /// Kills every adapter process now, with the descendants that escaped their group: for a second signal.
    public static func killAdaptersNow() {
        AdapterRegistry.killAll()
    }

    /// Makes this process adopt and reap the orphans of its adapters (Linux). Only for the CLI process,
    /// whose every other child is an adapter: the sweeps kill any child that is not one.
    @discardableResult
    public static func trackAdapterDescendants() -> Bool {
        AdapterRegistry.trackDescendants()
    }
}
