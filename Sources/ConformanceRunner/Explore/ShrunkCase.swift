import SpecModel

/// A shrunk failure as a case file in the `Specs/cases` format, for `run --spec-root` and for committing as a
/// regression case.
public enum ShrunkCase {
    /// The text of the case file. `steps` are the shrunk program; the case names the failure's requirements.
    public static func render(run: ExploreRunID, id: String, key: ExploreFailureKey, steps: [CaseStep], originalCount: Int,
                              minimal: Bool = true, replay: String, reproduce: String) -> String {
        var lines = [
            "# Found by session-conformance explore: run \(run.run) of seed \(run.seed), shrunk from \(Plural.count(originalCount, "step")) to \(steps.count)"
                + (minimal ? "." : ", not minimal: shrinking stopped at the time budget."),
            "# It fails \(key.check) (\(key.requirements.isEmpty ? "no requirement: the run errored" : key.requirements.joined(separator: ", "))).",
            "# The world's seed derives from the run seed and the case ID: keep both to replay it exactly.",
            "# Replay the original run: \(replay)",
            "# Run this case:          \(reproduce)",
            "kind: cases",
            "version: 1",
            "cases:",
            "  - id: \(id)",
            "    title: '\(title(key).replacingOccurrences(of: "'", with: "''"))'",
            "    requirements: [\(key.requirements.joined(separator: ", "))]",
        ]
        if ExploreRunID.aboutTimeouts(steps) {
            lines += ["    # About the client's own deadline: the clock moves past a held request.", "    timeouts: true"]
        }
        lines += ["    steps:"]
        lines += steps.map { "      " + $0.flowLine }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func title(_ key: ExploreFailureKey) -> String {
        let check = key.check.hasPrefix("oracle:") ? String(key.check.dropFirst("oracle:".count)) : key.check
        return "explore: an ordering that fails \(check)"
    }
}
