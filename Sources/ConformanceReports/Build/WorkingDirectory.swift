import Foundation

/// Paths as the user would type them in the directory the suite runs in, so reproduce lines and reports
/// carry no absolute path of the machine that built or ran them.
public enum WorkingDirectory {
    /// A path relative to the working directory when it lies inside it; otherwise unchanged.
    public static func relative(_ path: String, in directory: String = FileManager.default.currentDirectoryPath) -> String {
        let prefix = prefix(of: directory)
        guard let prefix, path.hasPrefix(prefix) else { return path }
        return String(path.dropFirst(prefix.count))
    }

    /// A command line with every absolute path inside the working directory made relative to it:
    /// `python3 /home/ci/repo/a/adapter.py` becomes `python3 a/adapter.py` when run from `/home/ci/repo`. A path
    /// left with no `/` keeps `./` (`/home/ci/repo/adapter` becomes `./adapter`): as a bare name, the shell would
    /// look the command up in PATH and the printed line would exit 127.
    public static func relativizing(_ commandLine: String, in directory: String = FileManager.default.currentDirectoryPath) -> String {
        guard let prefix = prefix(of: directory) else { return commandLine }
        var result = ""
        var rest = commandLine[...]
        while let found = rest.range(of: prefix) {
            result += rest[..<found.lowerBound]
            let after = rest[found.upperBound...]
            // The path's remainder: up to a space, a quote or a shell operator.
            let word = after.prefix { !" \t'\";|&<>()".contains($0) }
            result += word.contains("/") ? "" : "./"
            rest = after
        }
        return result + rest
    }

    private static func prefix(of directory: String) -> String? {
        let standard = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard standard.count > 1 else { return nil }
        return standard.hasSuffix("/") ? standard : standard + "/"
    }
}
