import SpecModel

/// The plain-text summary `run` prints: one line per requirement, each failure with its evidence, totals.
public struct RunSummary: Sendable {
    public let result: RunResult
    /// How to run the suite again, for the reproduce line of each failure.
    public let command: String

    public init(result: RunResult, command: String) {
        self.result = result
        self.command = command
    }

    public func rendered(verbose: Bool = false) -> String {
        var lines: [String] = []
        if let implementation = result.implementation {
            let capabilities = result.capabilities.isEmpty ? "none" : result.capabilities.joined(separator: ", ")
            lines.append("client: \(implementation.name) \(implementation.version) (\(implementation.language), \(implementation.platform)); capabilities: \(capabilities)")
        }
        if let failure = result.startupFailure {
            lines.append("error: the adapter could not be started: \(failure.message)")
            if !failure.stderrTail.isEmpty { lines.append("adapter stderr (tail):\n" + failure.stderrTail) }
        }
        lines.append("")
        for verdict in result.requirements where verbose || verdict.status != .notTestable {
            let cases = verdict.cases.map(\.id).joined(separator: ", ")
            let detail = verdict.reason.map { " (\($0))" } ?? (cases.isEmpty ? "" : "  [\(cases)]")
            lines.append(verdict.status.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0)
                         + verdict.level.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + verdict.id + detail)
        }
        let failing = result.outcomes.filter { $0.status == .fail || $0.status == .error }
        if !failing.isEmpty { lines.append("") }
        for outcome in failing {
            lines.append("\(outcome.status == .error ? "ERROR" : "FAIL") case \(outcome.caseID) (\(outcome.file))")
            if let reason = outcome.reason, outcome.status == .error {
                lines.append("  \(reason)")
                if let tail = outcome.stderrTail, !tail.isEmpty {
                    lines.append("  adapter stderr (tail):")
                    lines += tail.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).map { "    " + $0 }
                }
            }
            let renderer = TraceRenderer(vault: outcome.vault)
            for finding in outcome.findings {
                lines.append("  [\(finding.requirements.joined(separator: ", "))] step \(finding.step + 1), \(finding.check): \(finding.message)")
                if !finding.evidence.isEmpty {
                    lines.append("    evidence: " + finding.evidence.map { "#\($0)" }.joined(separator: " "))
                    lines += renderer.excerpt(outcome.trace, around: finding.evidence, context: 1, limit: 12)
                        .split(separator: "\n").map { "      " + $0 }
                }
            }
            lines.append("  reproduce: \(command) --case \(outcome.caseID) --seed \(result.seed)")
        }
        lines.append("")
        lines.append(totals)
        return lines.joined(separator: "\n") + "\n"
    }

    public var totals: String {
        let counts = RequirementStatus.allCases.compactMap { status -> String? in
            let count = result.requirements.filter { $0.status == status }.count
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        let caseCounts = CaseStatus.allCases.compactMap { status -> String? in
            let count = result.outcomes.filter { $0.status == status }.count
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        let verdict = result.mustRequirementsPass ? "every MUST requirement passed" : "MUST requirements failed"
        return "requirements: \(counts.joined(separator: ", ")); cases: \(caseCounts.isEmpty ? "none" : caseCounts.joined(separator: ", ")); seed \(result.seed): \(verdict)"
    }
}
