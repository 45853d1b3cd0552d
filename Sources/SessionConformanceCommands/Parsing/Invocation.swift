import ConformanceReports
import Foundation

/// How the user started this executable, for the commands the suite prints to be run again (reproduce and
/// replay lines, `--help` pointers): `session-conformance` when it was found on PATH, else its path as typed,
/// relative to the working directory (`.build/debug/session-conformance` in a source checkout, which is
/// also what `swift run session-conformance` starts).
enum Invocation {
    static let standard = "session-conformance"

    /// `argv0` as a word a shell runs again from `workingDirectory`. `sameFile` says whether two paths name
    /// the same file (symlinks followed): SwiftPM's `.build/<triple>/debug/X` is written `.build/debug/X`
    /// when that link exists.
    static func name(argv0: String, workingDirectory: String = FileManager.default.currentDirectoryPath,
                     sameFile: (String, String) -> Bool = sameFile) -> String {
        guard argv0.contains("/") else { return argv0.isEmpty ? standard : argv0 }
        var path = WorkingDirectory.relative(argv0, in: workingDirectory)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 4, parts[parts.count - 4].hasSuffix(".build"), ["debug", "release"].contains(parts[parts.count - 2]) {
            let short = (parts.dropLast(3) + parts.suffix(2)).joined(separator: "/")
            if sameFile(absolute(short, in: workingDirectory), absolute(path, in: workingDirectory)) { path = short }
        }
        if !path.contains("/") { path = "./" + path }
        let plain = path.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._/-+".unicodeScalars.contains($0))
        }
        return plain ? path : ShellWord.quoted(path)
    }

    private static func absolute(_ path: String, in directory: String) -> String {
        path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
    }

    private static func sameFile(_ a: String, _ b: String) -> Bool {
        guard FileManager.default.fileExists(atPath: a) else { return false }
        return URL(fileURLWithPath: a).resolvingSymlinksInPath().path == URL(fileURLWithPath: b).resolvingSymlinksInPath().path
    }
}
