import Foundation
import ProcessProbes

/// The fake adapters in Fixtures/, found from this file so tests do not depend on the working directory,
/// and small probes of the system the tests check with.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// How long a test waits for something that must happen. Generous: a loaded machine may take seconds
    /// to start python3, and only a broken implementation makes a test wait this long.
    static let patience: Duration = .seconds(30)

    /// The command line that runs the python3 fixture `name` (unbuffered).
    static func python(_ name: String) -> String {
        "exec python3 -u '\(directory.appendingPathComponent(name).path)'"
    }

    /// The command line that runs the shell fixture `name`.
    static func shell(_ name: String) -> String {
        "exec /bin/sh '\(directory.appendingPathComponent(name).path)'"
    }

    /// Whether `processID` names a live process: one that exists and is neither a zombie nor dead.
    static func isRunning(_ processID: Int32) -> Bool {
        ProcessProbe.isRunning(processID)
    }

    /// Whether any process has `processID`, zombies included.
    static func exists(_ processID: Int32) -> Bool {
        kill(processID, 0) == 0 || errno == EPERM
    }

    /// Waits (up to 10 s, polling) until `processID` is no longer running; returns whether it stopped.
    static func waitUntilGone(_ processID: Int32) -> Bool {
        for _ in 0..<1000 {
            if !isRunning(processID) { return true }
            usleep(10_000)
        }
        return false
    }

    /// The number of file descriptors this test process has open.
    static func openDescriptorCount() -> Int {
        #if os(Linux)
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        #else
        (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd").count) ?? -1
        #endif
    }

    #if os(Linux)
    // Pipes by identity need /proc/PID/fd, which only Linux has: the tests that compare them are Linux's.

    /// The pipes (as `pipe:[inode]`) that `processID` has as its stdin, stdout and stderr.
    static func standardPipes(of processID: Int32) -> Set<String> {
        Set((0...2).compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(processID)/fd/\($0)") }
            .filter { $0.hasPrefix("pipe:") })
    }

    /// The pipes (as `pipe:[inode]`) this test process has a descriptor of.
    static func openPipes() -> Set<String> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix("pipe:") })
    }
    #endif

    /// The integer fields of a one-line JSON object such as `{"shell":12,"child":13}`.
    static func integers(in line: String) -> [String: Int32] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return [:] }
        return object.compactMapValues { ($0 as? NSNumber)?.int32Value }
    }
}
