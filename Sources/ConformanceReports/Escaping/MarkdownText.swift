/// Client text in GitHub-flavoured Markdown, for a pull-request comment: the one escaping layer of the
/// Markdown report. Client text never becomes structure: no heading, list, quote, table break, link, image,
/// HTML, `@mention` or autolink comes from it.
///
/// - ``inline(_:)``: text within a line or in a table cell, every Markdown and HTML character escaped.
/// - ``paragraph(_:)``: text that starts a line of its own.
/// - ``code(_:)``: inline code, which Markdown leaves literal.
/// - ``html(_:)``: text inside an HTML element the suite writes (`<summary>`).
/// - ``fenced(_:language:)``: a code block whose fence is longer than any backtick run of the cleaned text.
///
/// Everywhere, characters that are not text (controls, bidirectional overrides) are shown as `\u{202E}`; and
/// since GitHub finds mentions and bare links in the rendered text, whatever escaping came before, an `@`
/// before a name and the `://` or `www.` of a link get a zero-width space (`&#8203;`) that breaks them.
public enum MarkdownText {
    /// Text for a line or a table cell: one line, no Markdown, no HTML.
    public static func inline(_ text: String) -> String {
        neutralised(UnsafeText.map(text, inlineTable))
    }

    /// HTML's characters as entities, Markdown's with a backslash, line breaks as spaces.
    private static let inlineTable: [Unicode.Scalar: String] = {
        var table = lineBreaks.merging(["|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;"]) { $1 }
        for scalar in "*_`[]\\#!~".unicodeScalars { table[scalar] = "\\" + String(scalar) }
        return table
    }()

    /// Text that stands as a paragraph of its own: ``inline(_:)``, and what would make its start a list item, a
    /// setext underline or an ordered list escaped.
    public static func paragraph(_ text: String) -> String {
        escapeLineStart(inline(text))
    }

    /// Text inside inline code, which is literal: only backticks, line breaks and table pipes need care.
    public static func code(_ text: String) -> String {
        UnsafeText.map(text, lineBreaks.merging(["`": "'", "|": "\\|"]) { $1 })
    }

    /// Line breaks and tabs, as spaces: inline text stays on its line.
    private static let lineBreaks: [Unicode.Scalar: String] = ["\n": " ", "\r": " ", "\t": " "]

    /// Text inside an HTML element of the comment (a `<summary>`): HTML-escaped, mentions and links broken.
    public static func html(_ text: String) -> String {
        neutralised(HTMLText.escape(text))
    }

    /// A fenced block whose fence is longer than any run of backticks in the text once it is cleaned (control
    /// characters out), so that no line of it can close the fence.
    public static func fenced(_ text: String, language: String = "text") -> [String] {
        let clean = UnsafeText.map(text, ["\n": "\n", "\t": "\t", "\r": ""])
        var longest = 0
        var run = 0
        for character in clean.unicodeScalars {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        return [fence + language, clean, fence, ""]
    }

    /// Text that could start a line: a list marker, a quote, a setext underline or an ordered-list number at its
    /// start is escaped (`#`, `>` and the like are escaped everywhere already).
    private static func escapeLineStart(_ text: String) -> String {
        guard let first = text.unicodeScalars.first else { return text }
        if "-+=".unicodeScalars.contains(first) { return "\\" + text }
        let digits = text.unicodeScalars.prefix { $0.properties.numericType == .decimal && $0.isASCII }
        if !digits.isEmpty, digits.count < text.unicodeScalars.count {
            let after = text.unicodeScalars[text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: digits.count)]
            if after == "." || after == ")" {
                return String(String.UnicodeScalarView(digits)) + "\\" + String(text.unicodeScalars.dropFirst(digits.count))
            }
        }
        return text
    }

    /// Mentions (`@name`), bare links (`https://`, `www.`) and e-mail autolinks broken by a zero-width space.
    static func neutralised(_ text: String) -> String {
        guard text.contains("@") || text.contains("://") || text.lowercased().contains("www.") else { return text }
        var output = ""
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            output.unicodeScalars.append(scalar)
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            let breaks: Bool = switch scalar {
            case "@": next.map { $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_".unicodeScalars.contains($0) } ?? false
            case ":": next == "/" && index + 2 < scalars.count && scalars[index + 2] == "/"
            case "w", "W": index >= 2 && String(String.UnicodeScalarView(scalars[(index - 2)...index])).lowercased() == "www" && next == "."
            default: false
            }
            if breaks { output += zeroWidthSpace }
        }
        return output
    }

    /// A zero-width space as an entity: invisible when rendered, plain ASCII in the comment's source.
    static let zeroWidthSpace = "&#8203;"
}
