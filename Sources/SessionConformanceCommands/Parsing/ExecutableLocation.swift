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
        resolve(isDirectory: isDirectory, executableDirectory: ExecutableLocation.directory.path)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// `Specs` in the working directory wins; else the `Specs/` beside the executable (the release archive); else
    /// the `Specs/` of the checkout a source-built executable lives in (the folder that holds its `.build`); else
    /// `Specs`, whose absence `lint` reports as usual.
    static func resolve(isDirectory: (String) -> Bool, executableDirectory: String) -> String {
        if isDirectory("Specs") { return "Specs" }
        let bundled = (executableDirectory as NSString).appendingPathComponent("Specs")
        if isDirectory(bundled) { return bundled }
        if let checkout = checkout(of: executableDirectory) {
            let specs = (checkout as NSString).appendingPathComponent("Specs")
            if isDirectory(specs) { return specs }
        }
        return "Specs"
    }

    /// The folder holding the `.build` an executable was built into, if it was (`swift build`).
    static func checkout(of executableDirectory: String) -> String? {
        let components = (executableDirectory as NSString).pathComponents
        guard let build = components.lastIndex(of: ".build"), build > 0 else { return nil }
        return NSString.path(withComponents: Array(components[..<build]))
    }

    /// The spec folder a command uses: `--spec-root`, or the default. With no `--spec-root` and no default
    /// folder anywhere, a usage error that says where it looked and which flag to pass, rather than a lint error
    /// about a `Specs` the user never named.
    static func chosen(_ arguments: ParsedArguments) throws(UsageError) -> String {
        if let given = arguments.value("spec-root") { return given }
        let executableDirectory = ExecutableLocation.directory.path
        let root = resolve(isDirectory: isDirectory, executableDirectory: executableDirectory)
        guard root == "Specs", !isDirectory(root) else { return root }
        throw missing(workingDirectory: FileManager.default.currentDirectoryPath, executableDirectory: executableDirectory)
    }

    static func missing(workingDirectory: String, executableDirectory: String) -> UsageError {
        UsageError("no spec folder: no Specs/ in the working directory (\(workingDirectory)), beside the executable "
                   + "(\(executableDirectory)) or in a checkout it was built in",
                   hint: "pass --spec-root DIR: the Specs folder of the suite's checkout or of its release archive")
    }
}
