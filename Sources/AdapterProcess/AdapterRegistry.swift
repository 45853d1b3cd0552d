import Foundation
import POSIXSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every adapter process this runner started and has not reaped yet, so an interruption can kill them all,
/// and, once ``trackDescendants()`` made the runner a subreaper (Linux), the descendants that escaped an
/// adapter's process group with `setsid`: orphaned, they become the runner's children, and
/// ``sweepOrphans()`` kills and reaps every child that is not a registered adapter.
public enum AdapterRegistry {
    private struct State {
        var processes: Set<pid_t> = []
        /// The guards of adapters' groups: children of the runner, not orphans, though no sweep kills them.
        var guards: Set<pid_t> = []
        var tracksDescendants = false
    }

    private static let state = Locked(State())

    /// Makes the runner adopt the orphans of its adapters (PR_SET_CHILD_SUBREAPER on Linux). Only for a
    /// process whose every other child is an adapter, such as the CLI: sweeps reap any unregistered child.
    /// Returns whether descendants are tracked.
    @discardableResult
    public static func trackDescendants() -> Bool {
        #if os(Linux)
        let enabled = setChildSubreaper()
        state.withLock { $0.tracksDescendants = enabled }
        return enabled
        #else
        return false
        #endif
    }

    /// Runs `spawn` and registers the process it started, under the lock, so a sweep never sees it unregistered.
    static func spawning(_ spawn: () throws(AdapterProcessError) -> pid_t) throws(AdapterProcessError) -> pid_t {
        try state.withLock { (current: inout State) throws(AdapterProcessError) -> pid_t in
            let processID = try spawn()
            current.processes.insert(processID)
            return processID
        }
    }

    /// Runs `spawn`, which starts the guard of an adapter's group, and registers it, as ``spawning(_:)`` does.
    static func spawningGuard(_ spawn: () throws(AdapterProcessError) -> pid_t) throws(AdapterProcessError) -> pid_t {
        try state.withLock { (current: inout State) throws(AdapterProcessError) -> pid_t in
            let processID = try spawn()
            current.guards.insert(processID)
            return processID
        }
    }

    /// Called once the process is reaped: its id may name another process from now on.
    static func reaped(_ processID: pid_t) {
        state.withLock {
            _ = $0.processes.remove(processID)
            _ = $0.guards.remove(processID)
        }
    }

    /// SIGKILL to every registered adapter and its process group, then a sweep: for an interruption.
    public static func killAll() {
        let (killed, tracked) = state.withLock { current in
            for processID in current.processes { signalProcessAndGroup(processID, SIGKILL) }
            return (current.processes, current.tracksDescendants)
        }
        // SIGKILL takes effect asynchronously: until an adapter has exited, a descendant that escaped its group is
        // still the adapter's child, not yet the runner's orphan, and a sweep now would miss it.
        if tracked { awaitExit(of: killed, polls: 400) }
        sweepOrphans()
    }

    /// Polls, 5 ms apart, until every one of `processIDs` has exited (a zombie, or reaped meanwhile by its
    /// ``AdapterProcess``), without reaping any.
    private static func awaitExit(of processIDs: Set<pid_t>, polls: Int) {
        var waiting = processIDs
        for _ in 0..<polls where !waiting.isEmpty {
            waiting = waiting.filter { processID in
                var info = siginfo_t()
                let result = waitid(P_PID, id_t(processID), &info, WEXITED | WNOWAIT | WNOHANG)
                if result != 0 { return errno == EINTR }
                #if canImport(Darwin)
                return info.si_pid == 0
                #else
                return info._sifields._sigchld.si_pid == 0
                #endif
            }
            if !waiting.isEmpty { usleep(5_000) }
        }
    }

    /// Kills and reaps every child of the runner that is not a registered adapter (adopted orphans), and
    /// then their children, which are adopted in turn. Does nothing unless descendants are tracked.
    public static func sweepOrphans() {
        for _ in 0..<64 {
            let orphans: [pid_t] = state.withLock { current in
                guard current.tracksDescendants else { return [] }
                let orphans = children().filter { !current.processes.contains($0) && !current.guards.contains($0) }
                // Unreaped, each id still names the orphan and the group it leads, so the kill cannot miss.
                for orphan in orphans { signalProcessAndGroup(orphan, SIGKILL) }
                return orphans
            }
            guard !orphans.isEmpty else { return }
            for orphan in orphans { reap(orphan) }
        }
    }

    #if os(Linux)
    /// prctl(PR_SET_CHILD_SUBREAPER, 1): <sys/prctl.h> is not part of the Glibc module, so it is looked up.
    private static func setChildSubreaper() -> Bool {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let setChildSubreaper: Int32 = 36
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return false }
        return unsafeBitCast(symbol, to: Prctl.self)(setChildSubreaper, 1, 0, 0, 0) == 0
    }
    #endif

    /// The runner's children, from /proc (Linux); empty elsewhere.
    private static func children() -> [pid_t] {
        #if os(Linux)
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let processID = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the command name in parentheses: " state ppid ...".
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, pid_t(fields[1]) == me else { return nil }
            return processID
        }
        #else
        return []
        #endif
    }
}
