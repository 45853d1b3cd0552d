/// One self-contained HTML file: inline CSS and inline SVG, no script, no external asset (a Content
/// Security Policy forbids loading any). It shows the verdict per profile, the run, the state machine
/// coloured by result, the per-requirement table, and for each failing case its findings, reproduce command,
/// a sequence diagram of its trace and the trace itself. Everything reads without JavaScript: the folded
/// parts are `<details>`.
public enum HTMLReportWriter {
    public static func render(_ report: ComplianceReport) -> String {
        let client = report.adapter.implementation.map { "\($0.name) \($0.version)" } ?? report.adapter.description
        var html: [String] = []
        html.append("<!DOCTYPE html>")
        html.append("<html lang=\"en\">")
        html.append("<head>")
        html.append("<meta charset=\"utf-8\">")
        html.append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">")
        html.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        html.append("<title>Conformance report: \(escape(client))</title>")
        html.append("<style>\(stylesheet)</style>")
        html.append("</head>")
        html.append("<body>")
        html.append("<main>")
        html += header(report, client: client)
        html += certification(report)
        html += summary(report)
        html += rootCauses(report)
        html += stateMachine(report)
        html += requirements(report)
        html += failures(report)
        html += realTimeWaits(report)
        html += expected(report)
        html += cases(report)
        html += run(report)
        html.append("</main>")
        html.append("</body>")
        html.append("</html>")
        return html.joined(separator: "\n") + "\n"
    }

    private static func header(_ report: ComplianceReport, client: String) -> [String] {
        let core = report.certification.first
        var (word, cls): (String, String) = switch core?.verdict {
        case .certified?: ("Certified", "good")
        case .incomplete?: ("Partial run", "neutral")
        case .notClaimed?, nil: ("Not certified", "bad")
        case .notCertified?: ("Not certified", "bad")
        }
        var verdictText = core?.reason ?? ""
        if let explored = report.explorationVerdict, report.run.startupFailure == nil {
            (word, cls) = report.gate.passed ? ("No failure found", "good") : ("Exploration failed", "bad")
            verdictText = explored
        }
        var lines = ["<header>"]
        lines.append("<p class=\"eyebrow\">session-conformance \(escape(report.suite.version)) · compliance report</p>")
        lines.append("<h1>\(escape(client))</h1>")
        let capabilities = report.adapter.capabilities.isEmpty ? "none" : report.adapter.capabilities.joined(separator: ", ")
        var facts = ["capabilities: \(escape(capabilities))", "seed \(escape(report.run.seed))",
                     "spec \(escape(report.spec.versionText)) <code>\(escape(String(report.spec.digest.prefix(19))))…</code>"]
        if let world = report.run.world { facts.append("world \(escape(world))") }
        if let shard = report.run.shard { facts.append("shard \(shard)") }
        lines.append("<p class=\"facts\">\(facts.joined(separator: " · "))</p>")
        lines.append("<div class=\"verdict \(cls)\"><span class=\"big\">\(word)</span> <span>\(escape(verdictText))</span></div>")
        if !report.gate.passed {
            lines.append("<div class=\"gate\"><strong>Gate failed</strong> (exit code 1):<ul>"
                         + report.gate.reasons.prefix(12).map { "<li>\(escape($0))</li>" }.joined()
                         + (report.gate.reasons.count > 12 ? "<li>and \(report.gate.reasons.count - 12) more</li>" : "") + "</ul></div>")
        }
        if let failure = report.run.startupFailure {
            lines.append("<div class=\"gate\"><strong>The adapter could not be started:</strong> \(escape(failure.message))"
                         + (failure.stderrTail.isEmpty ? "" : "<pre>\(escape(failure.stderrTail))</pre>") + "</div>")
        }
        lines.append("</header>")
        return lines
    }

    private static func certification(_ report: ComplianceReport) -> [String] {
        var lines = ["<section id=\"certification\">", "<h2>Certification</h2>", "<div class=\"profiles\">"]
        for verdict in report.certification {
            let cls = switch verdict.verdict {
            case .certified: "good"
            case .notCertified: "bad"
            case .notClaimed, .incomplete: "neutral"
            }
            var card = "<div class=\"profile \(cls)\"><h3>\(escape(verdict.profile))</h3>"
                + "<p class=\"profile-verdict\">\(escape(TextSummaryWriter.verdictWord(verdict.verdict)))</p>"
                + "<p>MUST passed: <strong>\(verdict.mustPassed)/\(verdict.mustTotal)</strong></p>"
                + "<p class=\"small\">\(escape(verdict.reason))</p>"
            if !verdict.blocking.isEmpty {
                card += "<details><summary>\(verdict.blocking.count) blocking</summary><ul>"
                    + verdict.blocking.map { blocker in
                        // A blocker is a requirement, or a case that errored.
                        let target = report.requirement(blocker.id) == nil ? "case-" + blocker.id : blocker.id
                        return "<li><a href=\"#\(anchor(target))\">\(escape(blocker.id))</a>: \(escape(blocker.why))</li>"
                    }.joined()
                    + "</ul></details>"
            }
            if !verdict.warnings.isEmpty {
                card += "<p class=\"small\">Warnings (SHOULD/MAY): " + verdict.warnings.map {
                    "<a href=\"#\(anchor($0))\">\(escape($0))</a>"
                }.joined(separator: ", ") + "</p>"
            }
            lines.append(card + "</div>")
        }
        lines.append("</div>")
        lines.append("</section>")
        return lines
    }

    private static func summary(_ report: ComplianceReport) -> [String] {
        var lines = ["<section id=\"summary\">", "<h2>Summary</h2>", "<table class=\"counts\">"]
        let statuses = RequirementReportStatus.allCases
        lines.append("<tr><th>requirements</th>" + statuses.map { "<th>\(badge($0))</th>" }.joined() + "</tr>")
        lines.append("<tr><td>\(report.requirements.count)</td>"
                     + statuses.map { "<td>\(report.summary.requirements[$0.rawValue] ?? 0)</td>" }.joined() + "</tr>")
        lines.append("</table>")
        lines.append("<table class=\"counts\">")
        let caseStatuses = CaseReportStatus.allCases
        lines.append("<tr><th>cases</th>" + caseStatuses.map { "<th>\(badge($0))</th>" }.joined() + "<th>time</th></tr>")
        lines.append("<tr><td>\(report.cases.count)</td>" + caseStatuses.map { "<td>\(report.summary.cases[$0.rawValue] ?? 0)</td>" }.joined()
                     + "<td>\(JUnitReportWriter.seconds(report.summary.durationSeconds)) s</td></tr>")
        lines.append("</table>")
        lines.append("</section>")
        return lines
    }

    private static func stateMachine(_ report: ComplianceReport) -> [String] {
        var lines = ["<section id=\"state-machine\">", "<h2>State machine</h2>"]
        lines.append("<p class=\"small\">Each transition and state takes the worst status of the requirements citing it "
                     + "(and, for transitions, of the cases exercising it). Dashed: not checked. Hover for details.</p>")
        lines.append("<div class=\"figure\">\(StateMachineDiagram.render(report.stateMachine))</div>")
        lines.append("<p class=\"legend\">" + [RequirementReportStatus.pass, .fail, .warn, .known, .error, .skipped, .untested].map {
            "<span class=\"swatch\" style=\"background:\(StatusPalette.fill($0));border-color:\(StatusPalette.stroke($0))\"></span>\($0.rawValue)"
        }.joined(separator: " ") + "</p>")
        lines.append("<details><summary>Transitions as a table</summary><table><tr><th>transition</th><th>from</th><th>to</th>"
                     + "<th>event</th><th>status</th></tr>"
                     + report.stateMachine.transitions.map {
                         "<tr><td><code>\(escape($0.id))</code></td><td>\(escape($0.from))</td><td>\(escape($0.to))</td>"
                             + "<td>\(escape($0.event))</td><td>\(badge($0.status))</td></tr>"
                     }.joined() + "</table></details>")
        lines.append("</section>")
        return lines
    }

    private static func requirements(_ report: ComplianceReport) -> [String] {
        var lines = ["<section id=\"requirements\">", "<h2>Requirements</h2>", "<table class=\"requirements\">"]
        lines.append("<thead><tr><th>status</th><th>level</th><th>requirement</th><th>covering cases</th></tr></thead><tbody>")
        for requirement in report.requirements {
            let cases = requirement.cases.map {
                "<a href=\"#\(anchor("case-" + $0.id))\" class=\"case-link s-\($0.status.rawValue)\" title=\"\($0.status.rawValue)\">"
                    + "\(escape($0.id))</a>"
            }.joined(separator: " ")
            var note = ""
            if let expected = requirement.expectedFailure { note = "<div class=\"small\">expected failure: \(escape(expected))</div>" }
            else if let reason = requirement.reason { note = "<div class=\"small\">\(escape(reason))</div>" }
            if FailureText.showsDesignWords(requirement.status) { note += designWords(requirement) }
            let capability = requirement.capability.map { " <span class=\"tag\">\(escape($0))</span>" } ?? ""
            lines.append("<tr id=\"\(anchor(requirement.id))\" class=\"row-\(requirement.status.rawValue)\"><td>\(badge(requirement.status))</td>"
                         + "<td>\(escape(requirement.level))</td><td><code>\(escape(requirement.id))</code>\(capability)"
                         + "<div>\(escape(requirement.title))</div>\(note)</td><td>\(cases)</td></tr>")
        }
        lines.append("</tbody></table>")
        lines.append("</section>")
        return lines
    }

    /// Every root cause, fix-first: what it is, what to do, the requirements it blocks and every case.
    private static func rootCauses(_ report: ComplianceReport) -> [String] {
        let causes = report.rootCauses ?? []
        guard !causes.isEmpty else { return [] }
        var lines = ["<section id=\"root-causes\">", "<h2>Fix first</h2>",
                     "<p class=\"small\">Findings that are the same in many cases, and the reasons cases could not run, "
                     + "grouped: the ones that block the most requirements first.</p>", "<ol class=\"root-causes\">"]
        for cause in causes {
            let requirements = cause.requirements.map { "<a href=\"#\(anchor($0))\">\(escape($0))</a>" }.joined(separator: ", ")
            let cases = cause.cases.map { id in
                report.testCase(id).map { [.fail, .error, .known].contains($0.status) } == true
                    ? "<a href=\"#\(anchor("case-" + id))\">\(escape(id))</a>" : escape(id)
            }.joined(separator: ", ")
            lines.append("<li id=\"\(anchor("root-cause-" + cause.id))\">"
                         + (cause.check.map { "<code>\(escape($0))</code>: " } ?? "") + "<strong>\(escape(cause.summary))</strong>"
                         + (cause.advice.map { "; \(escape($0))" } ?? "")
                         + "<div class=\"small\">blocks \(cause.requirements.count) requirement\(cause.requirements.count == 1 ? "" : "s") "
                         + "(\(cause.mustRequirements) MUST)" + (requirements.isEmpty ? "" : ": \(requirements)") + "</div>"
                         + "<details><summary>\(cause.cases.count) case\(cause.cases.count == 1 ? "" : "s")</summary>"
                         + "<div class=\"small\">\(cases)</div></details></li>")
        }
        lines += ["</ol>", "</section>"]
        return lines
    }

    private static func failures(_ report: ComplianceReport) -> [String] {
        let failing = report.cases.filter { [.fail, .error, .known].contains($0.status) }
        var lines = ["<section id=\"failures\">", "<h2>Failing cases</h2>"]
        if failing.isEmpty {
            lines.append("<p>No case failed.</p>")
        }
        for (index, testCase) in failing.enumerated() {
            lines.append("<article class=\"failure\" id=\"\(anchor("case-" + testCase.id))\">")
            lines.append("<h3>\(badge(testCase.status)) \(escape(testCase.id))</h3>")
            lines.append("<p>\(escape(testCase.title)) <span class=\"small\">(\(escape(testCase.file)))</span></p>")
            if let expected = testCase.expectedFailure { lines.append("<p class=\"small\">Expected failure: \(escape(expected))</p>") }
            if testCase.status == .error {
                lines.append("<p><strong>Error:</strong> \(escape(testCase.reason ?? "the adapter failed"))</p>")
                if let tail = testCase.stderrTail, !tail.isEmpty {
                    lines.append("<details open><summary>adapter stderr (tail)</summary><pre>\(escape(tail))</pre></details>")
                }
            }
            if !testCase.findings.isEmpty {
                lines.append("<ul class=\"findings\">")
                for finding in testCase.findings {
                    let requirements = finding.requirements.map { "<a href=\"#\(anchor($0))\">\(escape($0))</a>" }.joined(separator: ", ")
                    let events = finding.events.map { "#\($0)" }.joined(separator: " ")
                    let cause = RootCauseAnalysis.rootCause(of: finding, in: testCase, report: report).map { cause in
                        "<div class=\"small\">root cause: <a href=\"#\(anchor("root-cause-" + cause.id))\">\(escape(cause.title))</a> "
                            + "(\(cause.cases.count) case\(cause.cases.count == 1 ? "" : "s"))</div>"
                    } ?? ""
                    lines.append("<li><strong>\(requirements)</strong> · step \(finding.step) (<code>\(escape(finding.stepKind))</code>) · "
                                 + "<code>\(escape(finding.check))</code><div>\(escape(finding.fullMessage))</div>"
                                 + (events.isEmpty ? "" : "<div class=\"small\">evidence: \(events)</div>") + cause + "</li>")
                }
                lines.append("</ul>")
            }
            lines.append("<p class=\"small\">Reproduce:</p><pre class=\"command\">\(escape(testCase.reproduce))</pre>")
            lines.append("<div class=\"figure\">\(SequenceDiagram.render(testCase, index: index))</div>")
            let excerpt = testCase.findings.flatMap { TraceExcerpt.lines(testCase.trace, around: $0.events) }
            if !excerpt.isEmpty {
                lines.append("<details open><summary>Trace around the evidence</summary><pre>\(escape(excerpt.joined(separator: "\n")))</pre></details>")
            }
            let shown = testCase.trace.count == testCase.traceEvents ? "\(Plural.count(testCase.traceEvents, "event"))"
                : "\(testCase.trace.count) of \(testCase.traceEvents) events"
            lines.append("<details><summary>Trace (\(shown))</summary><pre>"
                         + escape(TraceExcerpt.text(testCase).joined(separator: "\n")) + "</pre></details>")
            lines.append("</article>")
        }
        lines.append("</section>")
        return lines
    }

    private static func realTimeWaits(_ report: ComplianceReport) -> [String] {
        let cases = RealTimeWaitText.caseLines(report)
        guard !cases.isEmpty else { return [] }
        return ["<section id=\"real-time\">", "<h2>\(escape(RealTimeWaitText.heading))</h2>",
                "<p class=\"small\">\(escape(RealTimeWaitText.explanation))</p>", "<ul>"]
            + cases.map { "<li>" + ($0.caseID.map { "<code>\(escape($0))</code>: " } ?? "") + escape($0.text) + "</li>" }
            + ["</ul>", "</section>"]
    }

    private static func expected(_ report: ComplianceReport) -> [String] {
        guard let expected = report.expectedFailures else { return [] }
        var lines = ["<section id=\"expected\">", "<h2>Expected failures</h2>"]
        lines.append("<p class=\"small\">From <code>\(escape(expected.file))</code>; "
                     + (expected.strict ? "an expected failure that passes fails the gate." : "unexpected passes are reported only.") + "</p>")
        lines.append("<table><tr><th>id</th><th>kind</th><th>outcome</th><th>reason</th></tr>")
        for entry in expected.entries {
            lines.append("<tr><td><code>\(escape(entry.id))</code></td><td>\(entry.kind.rawValue)</td>"
                         + "<td class=\"outcome-\(entry.outcome.rawValue)\">\(entry.outcome.rawValue)</td><td>\(escape(entry.reason))</td></tr>")
        }
        lines.append("</table>")
        lines.append("</section>")
        return lines
    }

    private static func cases(_ report: ComplianceReport) -> [String] {
        var lines = ["<section id=\"cases\">", "<h2>Cases</h2>", "<details><summary>All \(Plural.count(report.cases.count, "case"))</summary>"]
        lines.append("<table><tr><th>status</th><th>case</th><th>requirements</th><th>time</th></tr>")
        for testCase in report.cases {
            let id = [.fail, .error, .known].contains(testCase.status) ? "" : " id=\"\(anchor("case-" + testCase.id))\""
            lines.append("<tr\(id)><td>\(badge(testCase.status))</td><td><code>\(escape(testCase.id))</code>"
                         + "<div class=\"small\">\(escape(testCase.title))\(testCase.reason.map { " (\(escape($0)))" } ?? "")</div>"
                         + (testCase.wouldHaveChecked.map {
                             "<div class=\"small\">would have checked: \($0.map(escape).joined(separator: "; "))</div>"
                         } ?? "") + "</td>"
                         + "<td class=\"small\">\(testCase.requirements.map(escape).joined(separator: ", "))</td>"
                         + "<td>\(JUnitReportWriter.seconds(testCase.durationSeconds)) s</td></tr>")
        }
        lines.append("</table></details>")
        lines.append("</section>")
        return lines
    }

    private static func run(_ report: ComplianceReport) -> [String] {
        var rows: [(String, String)] = [
            ("suite", "session-conformance \(escape(report.suite.version))"),
            ("spec version", escape(report.spec.versionText)),
            ("spec digest", "<code>\(escape(report.spec.digest))</code> (\(report.spec.files.count) files)"),
            ("adapter", "<code>\(escape(report.adapter.description))</code>"),
        ]
        if let implementation = report.adapter.implementation {
            rows.append(("implementation", escape("\(implementation.name) \(implementation.version) (\(implementation.language), \(implementation.platform))")))
        }
        rows += [
            ("capabilities", escape(report.adapter.capabilities.isEmpty ? "none" : report.adapter.capabilities.joined(separator: ", "))),
            ("offline policy", escape(report.adapter.offlineResources.isEmpty ? "none" : report.adapter.offlineResources.joined(separator: ", "))),
            ("seed", escape(report.run.seed)),
            ("started", escape(report.run.startedAt)),
            ("finished", escape(report.run.finishedAt)),
            ("completed", report.run.completed ? "yes" : "no"),
            ("command", "<code>\(escape(report.run.command))</code>"),
        ]
        if let shard = report.run.shard { rows.append(("shard", shard.description)) }
        if let world = report.run.world { rows.append(("world", escape(world))) }
        if !report.run.filters.isEmpty { rows.append(("filters", escape(report.run.filters.joined(separator: ", ")))) }
        var lines = ["<section id=\"run\">", "<h2>Run</h2>", "<table class=\"facts\">"]
        lines += rows.map { "<tr><th>\($0.0)</th><td>\($0.1)</td></tr>" }
        lines.append("</table>")
        lines.append("<details><summary>Spec files</summary><table>" + report.spec.files.map {
            "<tr><td><code>\(escape($0.path))</code></td><td><code class=\"small\">\(escape($0.sha256))</code></td></tr>"
        }.joined() + "</table></details>")
        lines.append("</section>")
        return lines
    }

    static func badge(_ status: RequirementReportStatus) -> String {
        "<span class=\"badge\" style=\"color:\(StatusPalette.stroke(status));background:\(StatusPalette.fill(status));"
            + "border-color:\(StatusPalette.stroke(status))\">\(status.rawValue)</span>"
    }

    static func badge(_ status: CaseReportStatus) -> String {
        "<span class=\"badge\" style=\"color:\(StatusPalette.stroke(status));background:\(StatusPalette.fill(status));"
            + "border-color:\(StatusPalette.stroke(status))\">\(status.rawValue)</span>"
    }

    /// The requirement's statement and the design's verbatim quotes, each with its document.
    static func designWords(_ requirement: RequirementReport) -> String {
        "<div class=\"words\"><p class=\"statement\">\(escape(requirement.statement))</p>"
            + requirement.quotes.map { quote in
                "<blockquote>\(escape(quote.quote))<cite>\(escape(quote.document))</cite></blockquote>"
            }.joined() + "</div>"
    }

    /// An id attribute value: letters, digits and dashes.
    static func anchor(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
    }

    /// Text for HTML content and attribute values (``HTMLText``).
    public static func escape(_ text: String) -> String { HTMLText.escape(text) }

    static let stylesheet = """
        :root{color-scheme:light}
        body{margin:0;background:#f6f8fa;color:#1f2328;font:15px/1.5 -apple-system,"Segoe UI","DejaVu Sans",Helvetica,Arial,sans-serif}
        main{max-width:1080px;margin:0 auto;padding:24px}
        header,section{background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:18px 22px;margin-bottom:18px}
        h1{margin:.1em 0 .2em;font-size:28px}h2{margin:0 0 .6em;font-size:20px}h3{margin:.2em 0;font-size:16px}
        .eyebrow{margin:0;color:#57606a;text-transform:uppercase;letter-spacing:.06em;font-size:12px}
        .facts{color:#57606a;margin:.2em 0 1em}
        .verdict{display:flex;gap:14px;align-items:baseline;padding:12px 16px;border-radius:8px;border:2px solid}
        .verdict .big{font-size:24px;font-weight:700}
        .good{border-color:#1a7f37;background:#dafbe1}.bad{border-color:#cf222e;background:#ffebe9}.neutral{border-color:#8c959f;background:#f6f8fa}
        .gate{margin-top:12px;padding:10px 14px;border-left:4px solid #cf222e;background:#fff5f5}
        .profiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:12px}
        .profile{border:2px solid;border-radius:8px;padding:10px 14px}.profile p{margin:.2em 0}
        .profile-verdict{font-weight:700;font-size:18px}
        .small{font-size:12.5px;color:#57606a}
        table{border-collapse:collapse;width:100%;margin:.4em 0}
        th,td{border-bottom:1px solid #d8dee4;padding:6px 8px;text-align:left;vertical-align:top}
        th{background:#f6f8fa;font-weight:600}
        table.counts td,table.counts th{text-align:center}
        .badge{display:inline-block;min-width:64px;text-align:center;border:1px solid;border-radius:12px;padding:0 8px;font-size:12px;font-weight:600}
        .tag{display:inline-block;border:1px solid #8c959f;border-radius:10px;padding:0 6px;font-size:11px;color:#57606a}
        .row-fail,.row-error{background:#fff8f8}.row-warn,.row-known{background:#fffdf0}
        code,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
        pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:10px;overflow-x:auto;white-space:pre}
        pre.command{background:#24292f;color:#f6f8fa}
        a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
        .case-link{display:inline-block;margin:0 4px 2px 0;font-size:12.5px}
        .case-link.s-fail,.case-link.s-error{color:#cf222e;font-weight:600}.case-link.s-known{color:#bc4c00}.case-link.s-skipped{color:#57606a}.case-link.s-inconclusive{color:#1b7c83;font-style:italic}
        .words{margin:.4em 0;font-size:13.5px}.words .statement{margin:.2em 0;font-weight:600}
        blockquote{margin:.3em 0;padding:4px 10px;border-left:3px solid #8c959f;color:#424a53;white-space:pre-line}
        blockquote cite{display:block;font-style:normal;font-size:12px;color:#57606a}
        .figure{overflow-x:auto}
        svg.diagram{display:block;max-width:100%;height:auto;margin:6px 0}
        svg .state-name{font:600 14px "DejaVu Sans",sans-serif;fill:#1f2328}
        svg .state-status{font:12px "DejaVu Sans",sans-serif}
        svg .edge-label{font:11px "DejaVu Sans Mono",monospace}
        svg .lane{font:600 13px "DejaVu Sans",sans-serif;fill:#1f2328}
        svg .msg{font:11px "DejaVu Sans Mono",monospace;fill:#24292f}
        svg .hit{fill:#cf222e;font-weight:700}
        svg .num{font:11px "DejaVu Sans Mono",monospace;fill:#57606a}
        svg .step{font:600 11.5px "DejaVu Sans",sans-serif;fill:#0969da}
        svg .note{font:11px "DejaVu Sans Mono",monospace;fill:#1f2328}
        svg .gap{font:italic 11px "DejaVu Sans",sans-serif;fill:#57606a}
        .legend{font-size:13px}.swatch{display:inline-block;width:14px;height:14px;border:2px solid;border-radius:4px;vertical-align:-2px;margin:0 4px 0 10px}
        article.failure{border-top:1px solid #d0d7de;padding-top:12px;margin-top:12px}
        .findings li{margin-bottom:6px}
        .outcome-unexpectedPass,.outcome-errored{color:#cf222e;font-weight:600}.outcome-known{color:#bc4c00}
        details>summary{cursor:pointer;color:#0969da;margin:.3em 0}
        """
}
