/// Client text in HTML and XML (the HTML report, JUnit XML, the Markdown report's HTML elements): `&`, `<`,
/// `>` and quotes as entities; what is not text (controls but tab and newline, bidirectional overrides,
/// noncharacters) shown as `\u{202E}`, never passed through.
public enum HTMLText {
    /// Text for HTML content and attribute values; a carriage return is dropped.
    public static func escape(_ text: String) -> String {
        UnsafeText.map(text, markup.merging(["\"": "&quot;", "'": "&#39;", "\r": ""]) { $1 })
    }

    /// Text for XML character data (JUnit): a carriage return kept as `&#13;`.
    public static func xmlText(_ text: String) -> String {
        UnsafeText.map(text, markup.merging(["\r": "&#13;"]) { $1 })
    }

    /// Text for an XML attribute value (JUnit): quotes and white space as character references.
    public static func xmlAttribute(_ text: String) -> String {
        UnsafeText.map(text, markup.merging(["\"": "&quot;", "'": "&apos;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"]) { $1 })
    }

    /// `text` with what XML 1.0 cannot hold or a reader should not be shown raw (controls but tab, newline and
    /// carriage return; bidirectional overrides; noncharacters) made visible as `\u{202E}`.
    public static func xmlSafe(_ text: String) -> String {
        UnsafeText.map(text, whiteSpace.merging(["\r": "\r"]) { $1 })
    }

    private static let whiteSpace: [Unicode.Scalar: String] = ["\n": "\n", "\t": "\t"]
    private static let markup: [Unicode.Scalar: String] = whiteSpace.merging(["&": "&amp;", "<": "&lt;", ">": "&gt;"]) { $1 }
}
