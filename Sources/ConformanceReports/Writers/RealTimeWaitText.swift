/// The real-time waits of a report in words, for every format that shows diagnostics: per case, its first wait
/// and how many more, then what to do about them. A diagnostic: it changes no verdict.
enum RealTimeWaitText {
    /// Cases listed before the rest are counted only.
    static let casesShown = 10

    /// One line per case with a real-time wait (at most `casesShown`), and a last line counting the others.
    static func caseLines(_ report: ComplianceReport) -> [(caseID: String?, text: String)] {
        let cases = report.cases.filter { !($0.realTimeWaits ?? []).isEmpty }
        var lines: [(caseID: String?, text: String)] = cases.prefix(casesShown).map { testCase in
            let waits = testCase.realTimeWaits ?? []
            return (testCase.id, waits[0].sentence + (waits.count > 1 ? " (and \(waits.count - 1) more in this case)" : ""))
        }
        if cases.count > casesShown {
            lines.append((nil, "\(cases.count - casesShown) more cases let real time pass; the JSON report lists every one"))
        }
        return lines
    }

    static let heading = "Real time passed with the adapter silent"
    static let explanation = "The world's clock stood still while the runner waited: whatever the client waited for "
        + "happened at one virtual instant, so backoffs and timeouts are judged as if they took no time. "
        + "These notes decide no verdict. Likely cause: " + RealTimeWaitReport.advice
        + ". An adapter that was only busy (a thousand requests on real threads of a loaded machine) shows here too, "
        + "and then needs nothing."
}
