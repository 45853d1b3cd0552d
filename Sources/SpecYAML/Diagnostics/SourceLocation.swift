/// A position in a spec file: 1-based line and column (columns count Unicode scalars, as libyaml does).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The path as the user should see it, usually relative to the working directory.
    public let file: String
    public let line: Int
    public let column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
