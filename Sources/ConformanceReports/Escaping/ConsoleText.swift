/// Text a client, an adapter or a report file wrote, made safe for a terminal or a CI log: the one escaping
/// layer of every console line the suite prints (the summary, `diff`, the errors that quote a report).
///
/// A line the suite prints starts with what the suite writes: no character of client text can end it, move
/// the cursor back over it, or give a terminal or a CI runner a command. So every control character (C0, DEL,
/// C1, the line and paragraph separators) and every bidirectional override is shown as an escape (`\n`, `\r`,
/// `\t`, `\e`, `\u{202E}`), a backslash as `\\`, and a line whose first word is a workflow command of GitHub
/// Actions (`::error::`, `::add-mask::`, `::stop-commands::`) or of Azure Pipelines (`##vso[`, `##[`) gets a
/// backslash before it, since runners read such a line after trimming its leading spaces.
public enum ConsoleText {
    /// `text` on one line, every character a terminal or a log would act on shown as an escape.
    public static func escaped(_ text: String) -> String {
        UnsafeText.map(text, ["\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u{1B}": "\\e"])
    }

    /// A line the suite prints: `line` with its client text already escaped (or none), guarded against a
    /// workflow command at its start. Text with control characters is escaped first.
    public static func line(_ line: String) -> String {
        let safe = line.unicodeScalars.contains(where: UnsafeText.isUnsafe) ? escaped(line) : line
        let body = safe.drop { $0 == " " || $0 == "\t" }
        guard UnsafeText.workflowCommandStarts.contains(where: { body.hasPrefix($0) }) else { return safe }
        return String(safe[..<body.startIndex]) + "\\" + body
    }

    /// Every line of `text` through ``line(_:)``; the line breaks stay.
    public static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line(String($0)) }.joined(separator: "\n")
    }
}

/// The characters no output format passes through as they are: they end lines, move a terminal's cursor,
/// start escape sequences, reorder what a reader sees (bidirectional overrides, "Trojan Source"), or are not
/// characters at all. Each writer's escaping (console, TAP, Markdown, HTML, XML) shows them its own way.
public enum UnsafeText {
    /// GitHub Actions' and Azure Pipelines' workflow commands, read at the start of a log line.
    static let workflowCommandStarts = ["::", "##[", "##vso["]

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional marks and overrides
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0xFFFE, 0xFFFF, 0xFFF9...0xFFFB: true  // noncharacters and interlinear annotations
        default: false
        }
    }

    /// The one escaping engine of every format: `text` with each scalar of `replacements` replaced by its text,
    /// and every other unsafe scalar by `unsafe(scalar)` (by default ``visible(_:)``).
    public static func map(_ text: String, _ replacements: [Unicode.Scalar: String],
                           unsafe: (Unicode.Scalar) -> String = visible) -> String {
        var output = ""
        output.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] {
                output += replacement
            } else if isUnsafe(scalar) {
                output += unsafe(scalar)
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// `\u{202E}`: the scalar's code, visible and inert in every format.
    public static func visible(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + String(repeating: "0", count: max(0, 2 - hex.count)) + hex + "}"
    }
}
