import Foundation

/// An executable run as a child process of the tests: a copy of the built CLI in a folder of its own, `/bin/sh`.
enum LaunchedProcess {
    /// Copies the debug CLI into `folder`; returns the copy.
    static func copyCLI(into folder: URL) throws -> URL {
        let copy = folder.appendingPathComponent("session-conformance")
        try FileManager.default.copyItem(at: InterruptionTests.executable, to: copy)
        return copy
    }

    /// Runs `executable` with `arguments` in `folder`; returns its exit status, stdout and stderr. A freshly written
    /// executable can be refused with ETXTBSY while a process another test started at that moment still holds the
    /// copy's write descriptor (until it execs): it is tried again, for up to 10 s.
    static func run(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        for attempt in 0..<200 {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = folder
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            do {
                try process.run()
            } catch let error as NSError where attempt < 199 && Self.isTextFileBusy(error) {
                usleep(50_000)
                continue
            }
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stdout, stderr)
        }
        preconditionFailure("unreachable: the last attempt rethrows")
    }

    private static func isTextFileBusy(_ error: NSError) -> Bool {
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        return (error.domain == NSPOSIXErrorDomain && error.code == Int(ETXTBSY))
            || (underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ETXTBSY))
    }
}
