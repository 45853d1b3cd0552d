import ConformanceRunner
import SpecModel

extension ComplianceReport {
    /// Recomputes every derived section from the cases: requirement statuses (as the runner's verdicts
    /// decide them), expected failures, evidence, the state machine's colours, the certification verdicts,
    /// the summary and the gate. Idempotent.
    public mutating func derive() {
        cases.sort { $0.ordinal < $1.ordinal }
        let expectedRequirements = Dictionary(
            (expectedFailures?.entries ?? []).filter { $0.kind == .requirement }.map { ($0.id, $0.reason) },
            uniquingKeysWith: { first, _ in first })
        let expectedCases = Dictionary(
            (expectedFailures?.entries ?? []).filter { $0.kind == .case }.map { ($0.id, $0.reason) },
            uniquingKeysWith: { first, _ in first })

        // Cases: what happened, then which failures were expected.
        for index in cases.indices {
            let observed = cases[index].status == .known ? CaseReportStatus.fail : cases[index].status
            cases[index].status = observed
            cases[index].expectedFailure = nil
            guard observed == .fail else { continue }
            if let reason = expectedCases[cases[index].id] ?? expectedCases[cases[index].baseID] {
                cases[index].status = .known
                cases[index].expectedFailure = reason
            } else {
                let charged = Set(cases[index].findings.flatMap(\.requirements))
                if !charged.isEmpty, charged.allSatisfy({ expectedRequirements[$0] != nil }) {
                    cases[index].status = .known
                    cases[index].expectedFailure = charged.sorted().map { "\($0): \(expectedRequirements[$0]!)" }
                        .joined(separator: "; ")
                }
            }
        }

        // Requirements: the runner's verdict rule, over the cases.
        let declared = Set(adapter.capabilities)
        let reached = Set(cases.filter { [.pass, .fail, .known].contains($0.status) }.flatMap { $0.reached ?? [] }
            .compactMap(Situation.init(rawValue:)))
        for index in requirements.indices {
            let id = requirements[index].id
            let covering = cases.filter { $0.requirements.contains(id) }
            let charged = cases.flatMap { testCase in
                testCase.findings.filter { $0.requirements.contains(id) }.map { (testCase, $0) }
            }
            requirements[index].cases = covering.map { CaseReference(id: $0.id, status: $0.status) }
            requirements[index].evidence = charged.map { testCase, finding in
                Evidence(caseID: testCase.id, step: finding.step, stepKind: finding.stepKind, check: finding.check,
                         message: finding.message, occurrences: finding.occurrences, events: finding.events,
                         excerpt: TraceExcerpt.lines(testCase.trace, around: finding.events),
                         reproduce: testCase.reproduce)
            }
            let (status, reason) = Self.verdict(requirements[index], covering: covering, charged: charged.count,
                                                declared: declared, partial: isPartial, shard: run.shard, reached: reached,
                                                exploration: run.exploration != nil)
            requirements[index].status = status
            requirements[index].reason = reason
            requirements[index].expectedFailure = nil
            if status == .fail || status == .warn {
                if let reason = expectedRequirements[id] {
                    requirements[index].status = .known
                    requirements[index].expectedFailure = reason
                } else {
                    let failingCases = Set(charged.map(\.0.id))
                    if failingCases.allSatisfy({ expectedCases[$0] != nil }) {
                        requirements[index].status = .known
                        requirements[index].expectedFailure = failingCases.sorted()
                            .map { "\($0): \(expectedCases[$0]!)" }.joined(separator: "; ")
                    }
                }
            }
        }

        deriveExpectedFailureOutcomes()
        deriveStateMachine()
        deriveCertification()
        deriveSummary()
        deriveGate()
        rootCauses = RootCauseAnalysis.rootCauses(self)
    }

    /// The runner's rule (`VerdictRule`), on report data: a `known` case failed.
    static func verdict(_ requirement: RequirementReport, covering: [CaseReport], charged: Int, declared: Set<String>,
                        partial: Bool, shard: Shard?, reached: Set<Situation> = [],
                        exploration: Bool = false) -> (RequirementReportStatus, String?) {
        guard let level = RequirementLevel(rawValue: requirement.level) else {
            return (.notTestable, "level \(requirement.level)")
        }
        let uncovered = exploration ? "no oracle of the exploration judges it"
            : shard.map { "no case of shard \($0) covers it" } ?? (partial ? "no selected case covers it" : "no case covers it yet")
        let (status, reason) = VerdictRule.decide(
            level: level, capability: requirement.capability, declared: declared, charged: charged,
            covering: covering.map { VerdictRule.Covering(id: $0.id, status: $0.status.asCaseStatus, reason: $0.reason) },
            uncovered: uncovered, needs: (requirement.needs ?? []).compactMap(Situation.init(rawValue:)), reached: reached)
        return (RequirementReportStatus(status), reason)
    }

    private mutating func deriveExpectedFailureOutcomes() {
        guard var expected = expectedFailures else { return }
        for index in expected.entries.indices {
            let entry = expected.entries[index]
            switch entry.kind {
            case .case:
                // A case as written stands for its trigger variants: known if one of them failed.
                let statuses = Set(testCases(named: entry.id).map(\.status))
                if !statuses.isDisjoint(with: [.known, .fail]) {
                    expected.entries[index].outcome = .known
                } else if statuses.contains(.error) {
                    expected.entries[index].outcome = .errored
                } else if statuses.contains(.pass) {
                    expected.entries[index].outcome = .unexpectedPass
                } else {
                    expected.entries[index].outcome = .notRun
                }
            case .requirement:
                switch requirement(entry.id)?.status {
                case .known?, .fail?, .warn?: expected.entries[index].outcome = .known
                case .pass?: expected.entries[index].outcome = run.shard == nil ? .unexpectedPass : .pending
                case .error?: expected.entries[index].outcome = .errored
                case .skipped?, .untested?, .notTestable?, nil: expected.entries[index].outcome = .notRun
                }
            }
        }
        expectedFailures = expected
    }

    private mutating func deriveStateMachine() {
        for index in stateMachine.transitions.indices {
            let id = stateMachine.transitions[index].id
            let statuses = requirements.filter { $0.isTestable && $0.transitions.contains(id) }.map(\.status)
                + cases.filter { $0.transitions.contains(id) }.map(\.status.asRequirementStatus)
            stateMachine.transitions[index].status = RequirementReportStatus.worst(statuses)
        }
        for index in stateMachine.states.indices {
            let invariants = Set(stateMachine.states[index].invariants)
            let statuses = requirements.filter { requirement in
                requirement.isTestable && requirement.invariants.contains { invariants.contains($0) }
            }.map(\.status)
            stateMachine.states[index].status = RequirementReportStatus.worst(statuses)
        }
    }

    private mutating func deriveCertification() {
        let declared = Set(adapter.capabilities)
        let profiles = [[String]()] + spec.capabilities.map { [$0.id] }
        certification = profiles.map { capabilities in
            let name = (["core"] + capabilities).joined(separator: "+")
            let inProfile = requirements.filter { requirement in
                requirement.isTestable && (requirement.capability.map { capabilities.contains($0) } ?? true)
            }
            let must = inProfile.filter { $0.level == "MUST" }
            var blocking = must.filter { $0.status != .pass }.map { requirement in
                ProfileVerdict.Blocker(id: requirement.id, why: requirement.status.rawValue
                                       + (requirement.reason.map { ": \($0)" } ?? ""))
            }
            blocking += inProfile.filter { $0.level != "MUST" && $0.status == .error }.map {
                ProfileVerdict.Blocker(id: $0.id, why: "error: " + ($0.reason ?? "a covering case errored"))
            }
            let ids = Set(inProfile.map(\.id))
            blocking += cases.filter { $0.status == .error && $0.requirements.contains(where: ids.contains) }.map {
                ProfileVerdict.Blocker(id: $0.id, why: "case errored: " + ($0.reason ?? "the adapter failed"))
            }
            let warnings = inProfile.filter { $0.level != "MUST" && ($0.status == .warn || $0.status == .known) }.map(\.id)
            let missing = capabilities.filter { !declared.contains($0) }
            let verdict: ProfileVerdict.Verdict
            let reason: String
            if let failure = run.startupFailure {
                // Nothing ran: the client was neither certified nor failed; the gate fails on the start-up error.
                verdict = .incomplete
                reason = "the adapter could not be started, so no case ran: \(failure.message)"
            } else if !missing.isEmpty {
                verdict = .notClaimed
                reason = "the adapter does not declare \(missing.joined(separator: ", "))"
            } else if run.exploration != nil {
                verdict = .incomplete
                reason = Self.explorationCertifiesNothing
            } else if isPartial {
                verdict = .incomplete
                reason = run.shard.map { "shard \($0) of the suite: merge the shard reports for a verdict" }
                    ?? "only the selected cases ran: run the whole suite for a verdict"
            } else if blocking.isEmpty {
                verdict = .certified
                reason = "every MUST requirement passed and no case errored"
                    + (warnings.isEmpty ? "" : "; \(warnings.count) SHOULD/MAY warning\(warnings.count == 1 ? "" : "s")")
            } else {
                verdict = .notCertified
                reason = "\(blocking.count) blocking: " + blocking.prefix(5).map(\.id).joined(separator: ", ")
                    + (blocking.count > 5 ? ", ..." : "")
            }
            return ProfileVerdict(profile: name, capabilities: capabilities, verdict: verdict, reason: reason,
                                  mustTotal: must.count, mustPassed: must.filter { $0.status == .pass }.count,
                                  blocking: blocking, warnings: warnings)
        }
    }

    private mutating func deriveSummary() {
        var requirementCounts = Dictionary(uniqueKeysWithValues: RequirementReportStatus.allCases.map { ($0.rawValue, 0) })
        for requirement in requirements { requirementCounts[requirement.status.rawValue, default: 0] += 1 }
        var caseCounts = Dictionary(uniqueKeysWithValues: CaseReportStatus.allCases.map { ($0.rawValue, 0) })
        for testCase in cases { caseCounts[testCase.status.rawValue, default: 0] += 1 }
        let duration = cases.reduce(0) { $0 + $1.durationSeconds }
        summary = ReportSummary(requirements: requirementCounts, cases: caseCounts,
                                durationSeconds: (duration * 1000).rounded() / 1000)
    }

    private mutating func deriveGate() {
        var reasons: [String] = []
        if let failure = run.startupFailure { reasons.append("the adapter could not be started: \(failure.message)") }
        // An error is never an expected failure and never passes: each errored case fails the gate on its own,
        // whatever the expected-failures file says and whichever requirements it covers.
        for testCase in cases where testCase.status == .error {
            reasons.append("case \(testCase.id) errored: \(testCase.reason ?? "the adapter failed")")
        }
        for requirement in requirements where requirement.level == "MUST" {
            switch requirement.status {
            case .fail: reasons.append("MUST requirement \(requirement.id) failed")
            case .error: reasons.append("MUST requirement \(requirement.id) could not be checked: a covering case errored")
            case .untested where !isPartial:
                reasons.append("MUST requirement \(requirement.id) is untested: \(requirement.reason ?? "no case covers it")")
            default: break
            }
        }
        if run.exploration != nil { reasons += explorationGateReasons() }
        if let expected = expectedFailures, expected.strict {
            for entry in expected.unexpectedPasses {
                reasons.append("expected failure \(entry.id) now passes: remove it from \(expected.file), "
                               + "or pass --allow-unexpected-passes")
            }
        }
        gate = Gate(passed: reasons.isEmpty, reasons: reasons)
    }
}

/// The trace events around some evidence, for a failure report (the text summary's rule).
public enum TraceExcerpt {
    public static func lines(_ trace: [TraceLine], around evidence: [Int], context: Int = 2, limit: Int = 40) -> [String] {
        let byNumber = Dictionary(trace.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        var numbers: Set<Int> = []
        for number in evidence {
            for neighbour in (number - context)...(number + context) where byNumber[neighbour] != nil {
                numbers.insert(neighbour)
            }
        }
        var lines: [String] = []
        var previous = 0
        for number in numbers.sorted().prefix(limit) {
            if previous != 0 && number != previous + 1 { lines.append("   ...") }
            let marker = evidence.contains(number) ? "=> " : "   "
            lines.append(marker + byNumber[number]!.text)
            previous = number
        }
        return lines
    }

    /// The trace as text, one event a line, with a line where events were left out of the report.
    public static func text(_ testCase: CaseReport) -> [String] {
        var lines: [String] = []
        var previous = 0
        for line in testCase.trace {
            if line.number != previous + 1 { lines.append("   ... \(Plural.count(line.number - previous - 1, "event")) not in the report") }
            lines.append(line.text)
            previous = line.number
        }
        if previous < testCase.traceEvents { lines.append("   ... \(Plural.count(testCase.traceEvents - previous, "event")) not in the report") }
        return lines
    }
}
