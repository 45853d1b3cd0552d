/// The most a spec file may hold. Past each limit the loader reports a positioned error instead of using
/// more stack, memory or time: any input gives a diagnostic in bounded resources (docs/spec-format.md).
public enum SpecLimits {
    /// Bytes in one spec file (or design document); a larger file is not read at all.
    public static let fileBytes = 4 * 1024 * 1024
    /// Nesting of lists and mappings; reading a file stops at its first node deeper than this.
    public static let depth = 64
    /// Bytes in one scalar (a string, a number, a key).
    public static let scalarBytes = 64 * 1024
    /// Nodes (scalars, lists and mappings, keys included) in one file.
    public static let nodes = 100_000
    /// Items in one list, and entries in one mapping.
    public static let sequenceItems = 10_000
    /// Errors printed per file; the rest are counted in one line.
    public static let errorsPerFile = 50
    /// Bytes of diagnostic output for a whole lint; the rest are counted in one line.
    public static let diagnosticBytes = 256 * 1024
    /// Characters of a source line shown under a diagnostic: a window around the column.
    public static let sourceLineWindow = 120
}
