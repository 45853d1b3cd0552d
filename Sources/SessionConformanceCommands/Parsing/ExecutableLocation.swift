import Foundation

/// Where this executable is, symlinks resolved: the release archive keeps the reference adapter and
/// `Specs/` beside the CLI, and the CLI is often started through a symlink or `PATH`.
enum ExecutableLocation {
    static var directory: URL {
        // Bundle reads /proc/self/exe on Linux and the loader's path on macOS; argv[0] is the fallback,
        // wrong only when the CLI was started through PATH.
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return executable.resolvingSymlinksInPath().deletingLastPathComponent()
    }
}

/// The spec folder when no `--spec-root` is given.
enum DefaultSpecRoot {
    static var path: String {
        resolve(isDirectory: { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }, executableDirectory: ExecutableLocation.directory.path)
    }

    /// `Specs` in the working directory wins; else the `Specs/` beside the executable (the release archive);
    /// else `Specs`, whose absence `lint` reports as usual.
    static func resolve(isDirectory: (String) -> Bool, executableDirectory: String) -> String {
        if isDirectory("Specs") { return "Specs" }
        let bundled = (executableDirectory as NSString).appendingPathComponent("Specs")
        return isDirectory(bundled) ? bundled : "Specs"
    }
}
