import Foundation

/// JUnit XML, as GitHub Actions reporters, GitLab and Jenkins read it (valid against Jenkins' junit-10.xsd).
///
/// Two test suites: `requirements` (one test case per testable requirement, class `requirements.MUST`, ...)
/// and `cases` (one per acceptance case, class `cases.<file>`). JUnit has no expected failure or warning:
///
/// - `fail`: `<failure>` with the evidence and the reproduce command; `error`: `<error>` with the reason
///   and the adapter's stderr tail.
/// - `known` (an expected failure): `<skipped message="expected failure: ...">`, as pytest reports xfail.
/// - `warn` (a SHOULD or MAY that failed): `<failure type="warning">` with the evidence, so CI views show it
///   (it does not fail certification or the exit status: the gate decides those, not the JUnit counts).
/// - an expected failure that passed: `<failure type="unexpected-pass">` when the gate is strict.
/// - `skipped` and `untested`: `<skipped>` with the reason; an untested MUST of a whole-suite run is a
///   `<failure type="untested">`, since it fails the gate. An `inconclusive` case is `<skipped>` with the
///   message `inconclusive: <reason>`.
/// - A failure's text starts with the requirement's statement and the design's verbatim quotes.
///
/// Characters XML 1.0 cannot carry (most C0 controls) are dropped; the rest is escaped.
public enum JUnitReportWriter {
    public static func render(_ report: ComplianceReport) -> String {
        let testable = report.requirements.filter(\.isTestable)
        let unexpected = Set(report.expectedFailures?.unexpectedPasses.map(\.id) ?? [])
        let strict = report.expectedFailures?.strict ?? false
        let caseDurations = Dictionary(report.cases.map { ($0.id, $0.durationSeconds) }, uniquingKeysWith: { a, _ in a })

        var requirementCases: [String] = []
        var requirementCounts = Counts()
        for requirement in testable {
            let time = requirement.cases.reduce(0) { $0 + (caseDurations[$1.id] ?? 0) }
            var body: [String] = []
            switch requirement.status {
            case .pass where unexpected.contains(requirement.id):
                let text = "expected to fail, but passed: \(requirement.expectedFailure ?? reason(of: requirement.id, in: report))"
                if strict {
                    requirementCounts.failures += 1
                    body.append(element("failure", ["message": text, "type": "unexpected-pass"], text: text))
                } else {
                    body.append(element("system-out", [:], text: text))
                }
            case .pass, .notTestable:
                break
            case .fail:
                requirementCounts.failures += 1
                body.append(element("failure", ["message": firstMessage(requirement), "type": requirement.level],
                                    text: rootCauseLine(requirement.id, report) + evidenceText(requirement)))
            case .error:
                requirementCounts.errors += 1
                body.append(element("error", ["message": requirement.reason ?? "a covering case errored", "type": "adapter"],
                                    text: errorText(requirement, report: report)))
            case .warn:
                requirementCounts.failures += 1
                body.append(element("failure", ["message": "warning: \(requirement.level) requirement not met (does not fail "
                                                + "certification): " + firstMessage(requirement), "type": "warning"],
                                    text: evidenceText(requirement)))
            case .known:
                requirementCounts.skipped += 1
                body.append(element("skipped", ["message": "expected failure: \(requirement.expectedFailure ?? "")"]))
                body.append(element("system-out", [:], text: evidenceText(requirement)))
            case .untested where requirement.level == "MUST" && !report.isPartial:
                requirementCounts.failures += 1
                body.append(element("failure", ["message": requirement.reason ?? "no case covers it", "type": "untested"],
                                    text: rootCauseLine(requirement.id, report) + requirement.statement))
            case .skipped, .untested:
                requirementCounts.skipped += 1
                body.append(element("skipped", ["message": requirement.reason ?? requirement.status.rawValue]))
            }
            requirementCounts.tests += 1
            requirementCounts.time += time
            requirementCases.append(testcase(name: "\(requirement.id): \(requirement.title)",
                                             classname: "requirements.\(requirement.level)", time: time, body: body))
        }

        var caseElements: [String] = []
        var caseCounts = Counts()
        for testCase in report.cases {
            var body: [String] = []
            switch testCase.status {
            case .pass where unexpected.contains(testCase.id):
                let text = "expected to fail, but passed: \(reason(of: testCase.id, in: report))"
                if strict {
                    caseCounts.failures += 1
                    body.append(element("failure", ["message": text, "type": "unexpected-pass"], text: text))
                } else {
                    body.append(element("system-out", [:], text: text))
                }
            case .pass:
                break
            case .fail:
                caseCounts.failures += 1
                body.append(element("failure", ["message": testCase.findings.first?.fullMessage ?? "failed", "type": "findings"],
                                    text: findingsText(testCase)))
            case .known:
                caseCounts.skipped += 1
                body.append(element("skipped", ["message": "expected failure: \(testCase.expectedFailure ?? "")"]))
                body.append(element("system-out", [:], text: findingsText(testCase)))
            case .error:
                caseCounts.errors += 1
                var text = (testCase.reason ?? "the adapter failed") + "\n\nreproduce: \(testCase.reproduce)"
                if let tail = testCase.stderrTail, !tail.isEmpty { text += "\n\nadapter stderr (tail):\n\(tail)" }
                body.append(element("error", ["message": testCase.reason ?? "the adapter failed", "type": "adapter"], text: text))
            case .skipped:
                caseCounts.skipped += 1
                body.append(element("skipped", ["message": testCase.reason ?? "skipped"]))
            case .inconclusive:
                caseCounts.skipped += 1
                body.append(element("skipped", ["message": "inconclusive: \(testCase.reason ?? "a precondition did not hold")"]))
            }
            caseCounts.tests += 1
            caseCounts.time += testCase.durationSeconds
            let file = testCase.file.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? "cases"
            caseElements.append(testcase(name: "\(testCase.id): \(testCase.title)", classname: "cases.\(file)",
                                         time: testCase.durationSeconds, body: body))
        }

        let timestamp = String(report.run.startedAt.prefix(19))
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        let total = requirementCounts + caseCounts
        lines.append("<testsuites" + attributes([
            "name": "session-conformance", "tests": String(total.tests), "failures": String(total.failures),
            "errors": String(total.errors), "time": seconds(caseCounts.time),
        ]) + ">")
        lines.append(suite(name: "requirements", id: 0, counts: requirementCounts, timestamp: timestamp,
                           properties: properties(report), testcases: requirementCases))
        lines.append(suite(name: "cases", id: 1, counts: caseCounts, timestamp: timestamp, properties: properties(report),
                           testcases: caseElements))
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    struct Counts {
        var tests = 0
        var failures = 0
        var errors = 0
        var skipped = 0
        var time = 0.0

        static func + (lhs: Counts, rhs: Counts) -> Counts {
            Counts(tests: lhs.tests + rhs.tests, failures: lhs.failures + rhs.failures, errors: lhs.errors + rhs.errors,
                   skipped: lhs.skipped + rhs.skipped, time: lhs.time + rhs.time)
        }
    }

    private static func suite(name: String, id: Int, counts: Counts, timestamp: String, properties: [(String, String)],
                              testcases: [String]) -> String {
        var lines = ["  <testsuite" + attributes([
            "name": name, "id": String(id), "package": "session-conformance", "tests": String(counts.tests),
            "failures": String(counts.failures), "errors": String(counts.errors), "skipped": String(counts.skipped),
            "time": seconds(counts.time), "timestamp": timestamp,
        ]) + ">"]
        lines.append("    <properties>")
        for (key, value) in properties {
            lines.append("      <property" + attributes(["name": key, "value": value]) + "/>")
        }
        lines.append("    </properties>")
        lines += testcases
        lines.append("  </testsuite>")
        return lines.joined(separator: "\n")
    }

    private static func properties(_ report: ComplianceReport) -> [(String, String)] {
        var list: [(String, String)] = [
            ("suite.version", report.suite.version),
            ("spec.digest", report.spec.digest),
            ("spec.version", report.spec.versionText),
            ("adapter", report.adapter.description),
            ("adapter.capabilities", report.adapter.capabilities.joined(separator: ",")),
            ("seed", report.run.seed),
            ("startedAt", report.run.startedAt),
            ("finishedAt", report.run.finishedAt),
            ("completed", String(report.run.completed)),
        ]
        if let implementation = report.adapter.implementation {
            list.append(("implementation", "\(implementation.name) \(implementation.version) (\(implementation.language), \(implementation.platform))"))
        }
        if let shard = report.run.shard { list.append(("shard", shard.description)) }
        if let explored = report.explorationVerdict { list.append(("exploration", explored)) }
        if let world = report.run.world { list.append(("world", world)) }
        for verdict in report.certification { list.append(("certification.\(verdict.profile)", verdict.verdict.rawValue)) }
        // What to fix first, as CI views list properties: `rootCause.1` is the one that blocks the most requirements.
        for (index, cause) in RootCauseAnalysis.fixFirst(report, limit: TextSummaryWriter.fixFirstShown).enumerated() {
            list.append(("rootCause.\(index + 1)", "\(cause.summary) [\(cause.id); blocks \(cause.requirements.count) requirements, "
                         + "\(cause.mustRequirements) MUST; \(cause.cases.count) cases]"))
        }
        return list
    }

    /// `root cause: ...` and a blank line, for the body of a requirement's failure: the first (fix-first) root
    /// cause that blocks it. Empty when none does.
    private static func rootCauseLine(_ id: String, _ report: ComplianceReport) -> String {
        guard let cause = report.rootCauses?.first(where: { $0.requirements.contains(id) }) else { return "" }
        return "root cause: \(cause.summary) (\(cause.id), \(cause.cases.count) case\(cause.cases.count == 1 ? "" : "s"))"
            + (cause.advice.map { "; \($0)" } ?? "") + "\n\n"
    }

    private static func testcase(name: String, classname: String, time: Double, body: [String]) -> String {
        let open = "    <testcase" + attributes(["name": name, "classname": classname, "time": seconds(time)])
        guard !body.isEmpty else { return open + "/>" }
        return ([open + ">"] + body.map { "      " + $0 } + ["    </testcase>"]).joined(separator: "\n")
    }

    private static func element(_ name: String, _ attributes: [String: String], text: String? = nil) -> String {
        let open = "<\(name)" + Self.attributes(attributes)
        guard let text else { return open + "/>" }
        return open + ">" + escapeText(text) + "</\(name)>"
    }

    private static func firstMessage(_ requirement: RequirementReport) -> String {
        guard let first = requirement.evidence.first else { return requirement.reason ?? "failed" }
        return "\(first.caseID), step \(first.step): \(first.fullMessage)"
    }

    private static func reason(of id: String, in report: ComplianceReport) -> String {
        report.expectedFailures?.entries.first { $0.id == id }?.reason ?? ""
    }

    private static func evidenceText(_ requirement: RequirementReport) -> String {
        var lines = ["\(requirement.id) (\(requirement.level)): \(requirement.statement)"]
        if !requirement.quotes.isEmpty {
            lines.append("")
            lines.append("The design's words:")
            lines += requirement.quotes.map { "  \(FailureText.oneLine($0.quote))\n    (\($0.document))" }
        }
        for evidence in requirement.evidence {
            lines.append("")
            lines.append("case \(evidence.caseID), step \(evidence.step) (\(evidence.stepKind)), \(evidence.check): \(evidence.fullMessage)")
            lines += evidence.excerpt.map { "  " + $0 }
            lines.append("reproduce: \(evidence.reproduce)")
        }
        return lines.joined(separator: "\n")
    }

    private static func errorText(_ requirement: RequirementReport, report: ComplianceReport) -> String {
        let errored = report.cases.filter { testCase in
            testCase.status == .error && requirement.cases.contains { $0.id == testCase.id }
        }
        return errored.map { testCase in
            var text = "case \(testCase.id): \(testCase.reason ?? "the adapter failed")\nreproduce: \(testCase.reproduce)"
            if let tail = testCase.stderrTail, !tail.isEmpty { text += "\nadapter stderr (tail):\n\(tail)" }
            return text
        }.joined(separator: "\n\n")
    }

    private static func findingsText(_ testCase: CaseReport) -> String {
        var lines: [String] = []
        for finding in testCase.findings {
            lines.append("[\(finding.requirements.joined(separator: ", "))] step \(finding.step) (\(finding.stepKind)), \(finding.check): \(finding.fullMessage)")
            lines += TraceExcerpt.lines(testCase.trace, around: finding.events).map { "  " + $0 }
        }
        lines.append("reproduce: \(testCase.reproduce)")
        return lines.joined(separator: "\n")
    }

    /// Seconds with at most three decimals, as Surefire's time pattern wants.
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", max(0, value))
    }

    /// Attributes in a fixed order (sorted by name).
    private static func attributes(_ values: [String: String]) -> String {
        values.keys.sorted().map { " \($0)=\"\(escapeAttribute(values[$0]!))\"" }.joined()
    }

    /// What XML 1.0 cannot hold, and what a reader should not be shown raw, made visible (``HTMLText``).
    static func xmlSafe(_ text: String) -> String { HTMLText.xmlSafe(text) }

    static func escapeText(_ text: String) -> String { HTMLText.xmlText(text) }

    static func escapeAttribute(_ text: String) -> String { HTMLText.xmlAttribute(text) }
}
