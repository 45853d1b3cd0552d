import ConformanceReports
import ConformanceRunner
import Foundation
import SpecModel

/// `session-conformance list [cases|requirements]`: what a run plays, and what covers what.
enum ListCommand: Command {
    static let name = "list"
    static let summary = "List the cases or the requirements, and what covers what."
    static let usage = "session-conformance list [cases|requirements] [-k|--filter PATTERN]... [--requirement ID]... [--spec-root DIR]"
    static let discussion = """
        'list cases' (the default) prints one line per case: its ID, its file and the requirements it names,
        in the order 'run' plays them. 'list requirements' prints one line per requirement (level, ID, title)
        with the cases that name it and the oracles that check it on every trace; a testable requirement
        with neither is marked 'no case covers it yet'.

        --filter PATTERN (or -k PATTERN) keeps the IDs that contain it, ignoring case (case IDs for cases,
        requirement IDs for requirements): '-k refresh'. A PATTERN with a '*' is a glob over the whole ID
        instead, also ignoring case: '*' matches any run of characters, anywhere ('launch-*'). --requirement
        ID keeps the cases that name the requirement, or that requirement alone. The same selectors work on
        'run'.
        """
    static let options = [
        OptionSpec(name: "filter", kind: .value(placeholder: "PATTERN"),
                   help: "Keep the IDs that contain PATTERN, ignoring case; with a *, the IDs it matches as a glob (repeatable).", short: "k"),
        OptionSpec(name: "requirement", kind: .value(placeholder: "ID"), help: "Keep what covers this requirement (repeatable)."),
        OptionSpec(name: "spec-root", kind: .value(placeholder: "DIR"), help: "The spec folder (default Specs, else the Specs beside the executable)."),
    ]

    static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
        guard arguments.positionals.count <= 1 else {
            throw UsageError("unexpected argument '\(arguments.positionals[1])'", hint: "list takes one of: cases, requirements")
        }
        let what = arguments.positionals.first ?? "cases"
        guard ["cases", "requirements"].contains(what) else {
            let hint = Suggestion.closest(to: what, among: ["cases", "requirements"]).map { "did you mean '\($0)'?" }
            throw UsageError("list takes 'cases' or 'requirements', not '\(what)'", hint: hint)
        }
        let specRoot = try DefaultSpecRoot.chosen(arguments)
        let lint = SpecLinter.lint(paths: [specRoot], specRoot: specRoot, checkedInvariants: Oracles.checkedInvariants)
        guard lint.errorCount == 0 else {
            console.err(lint.rendered())
            console.err("list: the specs have \(lint.errorCount) error\(lint.errorCount == 1 ? "" : "s"); fix them first (session-conformance lint)\n")
            return .specOrUsageError
        }
        let filters = (arguments.values["filter"] ?? []).map(CaseSelection.filterPattern)
        let requirements = try RunCommand.knownRequirements(arguments.values["requirement"] ?? [], in: lint.bundle)
        let lines = what == "cases"
            ? caseLines(lint.bundle, filters: filters, requirements: requirements, specRoot: specRoot)
            : requirementLines(lint.bundle, filters: filters, requirements: requirements)
        guard !lines.isEmpty else {
            throw UsageError("nothing matches the selectors", hint: "'session-conformance list \(what)' lists them all")
        }
        console.out(lines.joined(separator: "\n") + "\n")
        return .success
    }

    static func caseLines(_ bundle: SpecBundle, filters: [String], requirements: [String], specRoot: String) -> [String] {
        let cases = RunCommand.select(bundle.playableCases, filters: filters, requirements: requirements)
        // The file column starts after the longest ID, so every line keeps its columns.
        let width = (cases.map(\.id.count).max() ?? 0) + 2
        return cases.map { testCase in
            testCase.id.padding(toLength: width, withPad: " ", startingAt: 0)
                + WorkingDirectory.relative(testCase.file) + "  " + testCase.requirements.map(\.value).joined(separator: ", ")
        }
    }

    static func requirementLines(_ bundle: SpecBundle, filters: [String], requirements: [String]) -> [String] {
        var lines: [String] = []
        for requirement in bundle.requirements {
            if !filters.isEmpty, !filters.contains(where: { CaseSelection.matches(pattern: $0, id: requirement.id) }) { continue }
            if !requirements.isEmpty, !requirements.contains(requirement.id) { continue }
            let cases = CaseSelection.covering(requirement.id, in: bundle.playableCases).map(\.id)
            let oracles = CaseSelection.oracles(checking: requirement.id)
            lines.append(requirement.level.rawValue.uppercased().padding(toLength: 7, withPad: " ", startingAt: 0)
                         + requirement.id + ": " + requirement.title)
            if !cases.isEmpty { lines.append("  cases:   " + cases.joined(separator: ", ")) }
            if !oracles.isEmpty { lines.append("  oracles: " + oracles.joined(separator: ", ")) }
            if cases.isEmpty && oracles.isEmpty && requirement.level.isTestable { lines.append("  no case covers it yet") }
        }
        return lines
    }
}
