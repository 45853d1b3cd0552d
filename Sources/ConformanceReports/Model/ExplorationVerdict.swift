import SpecModel

/// What the report of `explore` says, in every format: an exploration certifies nothing, and fails on any failure
/// it found (a SHOULD's too) or when it explored nothing, as `explore`'s exit status does; otherwise it passes.
extension ComplianceReport {
    static let explorationCertifiesNothing = "an exploration certifies nothing: 'session-conformance run' plays the "
        + "acceptance cases for a verdict"

    /// The exploration's outcome in one sentence, the same in every format; nil for a run of the acceptance cases.
    public var explorationVerdict: String? {
        guard let exploration = run.exploration else { return nil }
        let runs = Plural.count(exploration.runs, "generated run")
        guard !gate.passed else { return "no failure found in \(runs) (an exploration certifies nothing)" }
        let failures = cases.filter { ExploreCaseID($0.id) != nil && [.fail, .error, .known].contains($0.status) }.count
        if failures == 0 { return "failed: \(gate.reasons.first ?? "see the gate") (\(runs))" }
        return "failed: \(Plural.count(failures, "distinct failure")) found in \(runs)"
    }

    /// What fails an exploration's gate besides a failed MUST or an errored case: a failed SHOULD or MAY (explore
    /// exits 1 on any failure it finds), and runs that explored nothing (its summary case inconclusive).
    func explorationGateReasons() -> [String] {
        var reasons = requirements.filter { $0.status == .warn }.map { "\($0.level) requirement \($0.id) failed" }
        for testCase in cases where ExploreCaseID(testCase.id) == nil && testCase.status == .inconclusive {
            reasons.append("the exploration explored nothing: \(testCase.reason ?? "no run signed in")")
        }
        return reasons
    }
}
