/// Writes an expected-failures file (`run --write-expected-failures FILE`) in the format
/// `--expected-failures` reads: every requirement that failed, warned, or was already a known failure,
/// with its first finding as the reason (or the existing reason, for a known one). A team starts from it
/// and replaces each reason with its ticket.
public enum ExpectedFailuresWriter {
    public static func render(_ report: ComplianceReport) -> String {
        var lines = [
            "# Expected failures for session-conformance run --expected-failures (docs/ci.md).",
            "# Written from a run of \(ConsoleText.escaped(report.adapter.description)); replace each reason with why, and a ticket.",
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

    /// A YAML double-quoted scalar on one line (``YAMLText``), which the suite reads back whatever it holds.
    public static func quoted(_ text: String) -> String { YAMLText.quoted(text) }
}
