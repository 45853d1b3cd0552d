/// A shields-style SVG badge (flat style) for a README: `session-conformance | certified: core+...`.
///
/// The message names the profiles the client claims and passed: `certified: core+background-refresh`
/// (green), with `; not: CAPABILITY` for a claimed optional profile that was not certified (yellow);
/// `not certified: core` (red) when the core profile failed; `incomplete` (grey) for a shard or a
/// filtered run, which certifies nothing. An exploration's says what it found: `explored: no failure in N runs`
/// (green) or `explored: failed` (red).
public enum BadgeWriter {
    public static let label = "session-conformance"

    public static func render(_ report: ComplianceReport) -> String {
        let (message, colour) = verdict(report)
        let labelWidth = textWidth(label) + 10
        let messageWidth = textWidth(message) + 10
        let width = labelWidth + messageWidth
        let title = escaped("\(label): \(message)")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="20" role="img" aria-label="\(title)">
            <title>\(title)</title>
            <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
            <clipPath id="r"><rect width="\(width)" height="20" rx="3" fill="#fff"/></clipPath>
            <g clip-path="url(#r)"><rect width="\(labelWidth)" height="20" fill="#555"/><rect x="\(labelWidth)" width="\(messageWidth)" height="20" fill="\(colour)"/><rect width="\(width)" height="20" fill="url(#s)"/></g>
            <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
            <text x="\(labelWidth / 2)" y="15" fill="#010101" fill-opacity=".3">\(escaped(label))</text><text x="\(labelWidth / 2)" y="14">\(escaped(label))</text>
            <text x="\(labelWidth + messageWidth / 2)" y="15" fill="#010101" fill-opacity=".3">\(escaped(message))</text><text x="\(labelWidth + messageWidth / 2)" y="14">\(escaped(message))</text>
            </g>
            </svg>

            """
    }

    /// The badge's message and colour.
    public static func verdict(_ report: ComplianceReport) -> (message: String, colour: String) {
        let profiles = report.certification
        if let exploration = report.run.exploration, report.run.startupFailure == nil {
            return report.gate.passed ? ("explored: no failure in \(Plural.count(exploration.runs, "run"))", "#4c1")
                : ("explored: failed", "#e05d44")
        }
        guard !report.isPartial, !profiles.contains(where: { $0.verdict == .incomplete }),
              let core = profiles.first(where: { $0.profile == "core" }) else {
            return ("incomplete", "#9f9f9f")
        }
        guard core.verdict == .certified else { return ("not certified: core", "#e05d44") }
        let optional = profiles.filter { $0.profile != "core" && $0.verdict != .notClaimed }
        let certified = optional.filter { $0.verdict == .certified }.flatMap(\.capabilities)
        let missed = optional.filter { $0.verdict != .certified }.flatMap(\.capabilities)
        var message = "certified: " + (["core"] + certified).joined(separator: "+")
        guard !missed.isEmpty else { return (message, "#4c1") }
        message += "; not: " + missed.joined(separator: ", ")
        return (message, "#dfb317")
    }

    /// Verdana 11px, roughly: narrow letters, wide capitals; a badge only needs to be close.
    static func textWidth(_ text: String) -> Int {
        var width = 0.0
        for character in text {
            switch character {
            case "i", "l", "j", "t", "f", "r", ".", ",", ":", ";", "'", "!", "|", " ": width += 4.2
            case "m", "w", "M", "W": width += 10.5
            case _ where character.isUppercase: width += 7.8
            default: width += 6.9
            }
        }
        return Int(width.rounded(.up))
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
