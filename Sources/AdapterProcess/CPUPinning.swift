#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a worker thread, the adapter processes it starts and their reader threads on one CPU (Linux).
///
/// A runner worker and its adapter hand the turn back and forth at every barrier: one writes and waits, the other
/// wakes. On different CPUs each hand-off wakes a sleeping CPU; on one CPU it is a context switch. Measured on a
/// 2-core virtual machine, a pipe round trip between two processes cost about 50 µs of CPU across CPUs and 6 to
/// 8 µs on one (scripts/pipe-round-trip.py, docs/performance.md). Threads and processes inherit the mask of the
/// thread that creates them, so pinning the worker before it starts an adapter pins the adapter, what it forks,
/// and the threads that read its output. Only where a process runs changes: nothing the runner decides depends on
/// it.
public enum CPUPinning {
    /// A thread's affinity mask as the kernel takes it (1,024 CPUs).
    public struct Mask: Sendable, Equatable {
        fileprivate var words = [UInt64](repeating: 0, count: 16)

        /// The CPUs in the mask, in order.
        public var cpus: [Int] {
            words.indices.flatMap { word in
                (0..<64).filter { words[word] & (1 << UInt64($0)) != 0 }.map { word * 64 + $0 }
            }
        }

        fileprivate init() {}

        fileprivate init?(cpu: Int) {
            guard cpu >= 0, cpu < 16 * 64 else { return nil }
            words[cpu / 64] = 1 << UInt64(cpu % 64)
        }
    }

    /// The calling thread's mask; nil where the system has no affinity call.
    public static func currentMask() -> Mask? {
        var mask = Mask()
        guard let call = Calls.get, mask.words.withUnsafeMutableBytes({ call(0, $0.count, $0.baseAddress) }) == 0 else {
            return nil
        }
        return mask
    }

    /// The CPU the calling thread is pinned to, if its mask holds exactly one.
    public static func currentCPU() -> Int? {
        guard let cpus = currentMask()?.cpus, cpus.count == 1 else { return nil }
        return cpus[0]
    }

    /// The CPU the calling thread runs on at this moment; nil where the system cannot tell.
    public static func runningCPU() -> Int? {
        guard let call = Calls.running else { return nil }
        let cpu = call()
        return cpu >= 0 ? Int(cpu) : nil
    }

    /// Pins the calling thread to `cpu`. Returns the mask it had, to `restore` when its work is done; nil when the
    /// thread could not be pinned (no affinity call, or a CPU it may not use), and then nothing changed.
    public static func pinCurrentThread(to cpu: Int) -> Mask? {
        guard let previous = currentMask(), let pinned = Mask(cpu: cpu), set(pinned) else { return nil }
        return previous
    }

    /// Gives the calling thread `mask` again.
    public static func restore(_ mask: Mask) {
        _ = set(mask)
    }

    private static func set(_ mask: Mask) -> Bool {
        var mask = mask
        guard let call = Calls.set else { return false }
        return mask.words.withUnsafeMutableBytes { call(0, $0.count, $0.baseAddress) } == 0
    }

    /// glibc declares sched_getaffinity, sched_setaffinity and sched_getcpu only under _GNU_SOURCE, which Swift's
    /// Glibc module does not define; they are looked up once by name instead.
    private enum Calls {
        typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
        typealias Running = @convention(c) () -> Int32
        #if os(Linux)
        static let get = lookUp("sched_getaffinity", as: Affinity.self)
        static let set = lookUp("sched_setaffinity", as: Affinity.self)
        static let running = lookUp("sched_getcpu", as: Running.self)

        private static func lookUp<Function>(_ name: String, as type: Function.Type) -> Function? {
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        }
        #else
        static let get: Affinity? = nil
        static let set: Affinity? = nil
        static let running: Running? = nil
        #endif
    }
}
