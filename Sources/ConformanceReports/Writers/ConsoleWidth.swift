import Foundation

/// Lines that fit a terminal: the width to use, and a line cut to it with an ellipsis at a word boundary
/// (never wrapped mid-word). The reports keep what the console leaves out.
public enum ConsoleWidth {
    /// When standard output is not a terminal and `COLUMNS` does not say.
    public static let fallback = 100
    /// Narrower than this, lines are not cut at all: nothing useful would fit.
    static let minimum = 40

    /// `COLUMNS` when it is a number, else the terminal's width when standard output is one, else 100.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return max(columns, minimum) }
        #if canImport(Glibc) || canImport(Darwin)
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return max(Int(size.ws_col), minimum)
        }
        #endif
        return fallback
    }

    /// The line, or its beginning up to the last word that fits, then `…`.
    public static func fit(_ line: String, _ width: Int) -> String {
        guard width < .max, line.count > width, width >= minimum else { return line }
        return cut(line, width)
    }

    private static func cut(_ line: String, _ width: Int) -> String {
        guard line.count > width else { return line }
        let room = line.prefix(width - 1)
        // Back to a word boundary when one is near; a long token (a path, an ID) is cut where it must be.
        if let space = room.lastIndex(of: " "), room.distance(from: space, to: room.endIndex) < 25 {
            var kept = String(room[..<space])
            while kept.last == " " { kept.removeLast() }
            return kept + "…"
        }
        return String(room) + "…"
    }

    /// `head` cut so that `tail` still fits after it: the counts at the end of a line survive.
    public static func fit(_ head: String, keeping tail: String, _ width: Int) -> String {
        guard width < .max, head.count + tail.count > width, width >= minimum else { return head + tail }
        let room = width - tail.count
        guard room >= 12 else { return fit(head + tail, width) }
        return cut(head, room) + tail
    }

    /// Text wrapped at spaces into lines of at most `width` characters, each after `indent`.
    public static func wrap(_ text: String, _ width: Int, indent: String) -> [String] {
        var lines: [String] = []
        var current = indent
        for word in text.split(separator: " ") {
            if current.count > indent.count && current.count + 1 + word.count > width && width >= minimum {
                lines.append(current)
                current = indent
            }
            current += (current.count > indent.count ? " " : "") + word
        }
        if current.count > indent.count { lines.append(current) }
        return lines.map { fit($0, width) }
    }

    /// A list of case IDs on one line that fits: as many as fit, then `(and N more cases; see the report)`.
    public static func cases(_ ids: [String], _ width: Int, prefix: String) -> String {
        let all = prefix + ids.joined(separator: ", ")
        if all.count <= width || width < minimum { return all }
        var shown: [String] = []
        for (index, id) in ids.enumerated() {
            let rest = ids.count - index - 1
            let candidate = prefix + (shown + [id]).joined(separator: ", ") + (rest > 0 ? " " + more(rest) : "")
            if candidate.count > width && !shown.isEmpty { break }
            shown.append(id)
        }
        let hidden = ids.count - shown.count
        let line = prefix + shown.joined(separator: ", ") + (hidden > 0 ? " " + more(hidden) : "")
        if line.count > width {
            // Not even one ID fits beside the count: the count alone.
            var bare = prefix
            while bare.last == " " || bare.last == ":" { bare.removeLast() }
            return fit(bare + " (see the report)", width)
        }
        return line
    }

    static func more(_ count: Int) -> String {
        "(and \(count) more case\(count == 1 ? "" : "s"); see the report)"
    }
}
