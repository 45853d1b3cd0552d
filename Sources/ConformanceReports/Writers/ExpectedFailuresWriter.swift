/// Writes an expected-failures file (`run --write-expected-failures FILE`) in the format
/// `--expected-failures` reads: every requirement that failed, warned, or was already a known failure,
/// with its first finding as the reason (or the existing reason, for a known one). A team starts from it
/// and replaces each reason with its ticket.
public enum ExpectedFailuresWriter {
    public static func render(_ report: ComplianceReport) -> String {
        var lines = [
            "# Expected failures for session-conformance run --expected-failures (docs/ci.md).",
            "# Written from a run of \(report.adapter.description); replace each reason with why, and a ticket.",
        ]
        let listed = report.requirements.filter { [.fail, .warn, .known].contains($0.status) }
        if listed.isEmpty { lines.append("[]") }
        for requirement in listed {
            lines.append("- id: \(requirement.id)")
            lines.append("  reason: \(quoted(reason(requirement)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func reason(_ requirement: RequirementReport) -> String {
        if requirement.status == .known, let existing = requirement.expectedFailure { return existing }
        if let first = requirement.evidence.first { return "\(first.caseID): \(first.message)" }
        return requirement.reason ?? "\(requirement.status.rawValue) (no finding recorded)"
    }

    /// A YAML double-quoted scalar on one line.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
