import ConformanceReports
import ConformanceRunner
import SpecModel

extension RunCommand {
    /// The filters of the run: the globs as given, or, when --requirement or --rerun-failed chose the cases,
    /// their exact IDs (so the report records what ran, and stays partial). Nil when nothing is left to
    /// rerun; that is said on the console.
    static func selection(_ arguments: ParsedArguments, bundle: SpecBundle, console: any Console) throws -> [String]? {
        let ids = try knownCases(arguments.values["case"] ?? [], in: bundle)
        let filters = arguments.values["filter"] ?? []
        let globs = ids + filters.map(CaseSelection.filterPattern)
        let requirements = try knownRequirements(arguments.values["requirement"] ?? [], in: bundle)
        var cases = select(bundle.playableCases, filters: globs, requirements: requirements)
        if !globs.isEmpty || !requirements.isEmpty, cases.isEmpty {
            let selectors = (ids + filters).map { "'\($0)'" } + requirements.map { "requirement \($0)" }
            throw UsageError("no case matches \(selectors.joined(separator: ", "))",
                             hint: "'session-conformance list' shows the cases and what they cover")
        }
        if let path = arguments.value("rerun-failed") {
            let report = try RerunReport.read(path: path)
            // A report whose adapter could not be started ran nothing: every selected case is to run.
            let failed = Set(report.cases.filter { [.fail, .error, .inconclusive].contains($0.status) }.map(\.id))
            try RerunReport.checkKnown(report.cases.map(\.id).filter(failed.contains), in: bundle, path: path, console: console)
            cases = cases.filter { report.run.startupFailure != nil || failed.contains($0.id) }
            guard !cases.isEmpty else {
                console.err("run: nothing to rerun: no selected case failed, errored or was inconclusive in \(path)\n")
                return nil
            }
        } else if requirements.isEmpty {
            return globs
        }
        return cases.map(\.id)
    }

    /// The cases the globs and the requirements select; every case when neither is given.
    static func select(_ cases: [AcceptanceCase], filters: [String], requirements: [String]) -> [AcceptanceCase] {
        cases.filter { testCase in
            (filters.isEmpty || filters.contains { CaseSelection.matches(pattern: $0, case: testCase) })
                && (requirements.isEmpty || testCase.requirements.contains { requirements.contains($0.value) })
        }
    }

    /// The `--case` IDs (or globs), each checked to select a case; a near miss gets the closest ID.
    static func knownCases(_ ids: [String], in bundle: SpecBundle) throws -> [String] {
        let cases = bundle.playableCases
        for id in ids where !cases.contains(where: { CaseSelection.matches(pattern: id, case: $0) }) {
            var known: [String] = []
            for testCase in cases where known.last != testCase.baseID { known += [testCase.baseID, testCase.id] }
            let hint = Suggestion.closest(to: id, among: known).map { "did you mean '\($0)'?" }
                ?? "'session-conformance list' shows the cases and what they cover"
            throw UsageError("no case matches '\(id)'", hint: hint)
        }
        return ids
    }

    /// The requirement IDs, each checked against the spec.
    static func knownRequirements(_ ids: [String], in bundle: SpecBundle) throws -> [String] {
        let known = bundle.requirements.map(\.id)
        for id in ids where !known.contains(id) {
            let hint = Suggestion.closest(to: id, among: known).map { "did you mean '\($0)'?" }
                ?? "'session-conformance list requirements' lists them"
            throw UsageError("no requirement '\(id)' in the spec", hint: hint)
        }
        return ids
    }
}
