import Foundation

/// What the tests ask of other processes, on Linux through /proc and elsewhere through ps(1).
public enum ProcessProbe {
    /// Whether `processID` names a live process: one that exists and is neither a zombie nor dead.
    public static func isRunning(_ processID: Int32) -> Bool {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: nameEnd)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
        #else
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-o", "stat=", "-p", String(processID)]
        let output = Pipe()
        ps.standardOutput = output
        guard (try? ps.run()) != nil else { return false }
        ps.waitUntilExit()
        let state = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return !state.isEmpty && !state.hasPrefix("Z")
        #endif
    }
}
