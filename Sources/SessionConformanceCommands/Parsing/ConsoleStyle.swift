/// ANSI colours for the console: status words and the certification line.
public enum ConsoleStyle {
    /// Colours on a terminal, unless NO_COLOR is set to anything non-empty (no-color.org).
    public static func colorsWanted(isTerminal: Bool, environment: [String: String]) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    static let reset = "\u{1B}[0m"

    static func code(for status: String) -> String? {
        switch status.lowercased() {
        case "pass", "certified": "\u{1B}[32m"
        case "fail", "error": "\u{1B}[31m"
        case "warn", "known", "inconclusive", "untested", "skipped", "incomplete": "\u{1B}[33m"
        default: nil
        }
    }

    /// A word in its status colour, or unchanged.
    static func paint(_ word: String, as status: String) -> String {
        code(for: status).map { $0 + word + reset } ?? word
    }

    /// Colours the status word that starts each requirement and case line of a summary.
    public static func colorize(_ summary: String) -> String {
        summary.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let first = line.prefix { $0 != " " }
            guard !first.isEmpty, first == first.uppercased(), code(for: String(first)) != nil else { return String(line) }
            return paint(String(first), as: String(first)) + line.dropFirst(first.count)
        }.joined(separator: "\n")
    }
}
