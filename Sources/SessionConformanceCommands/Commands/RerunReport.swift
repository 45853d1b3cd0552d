import ConformanceReports
import Foundation
import SpecModel

/// `--rerun-failed REPORT.json` reads a report as data, never as a command: the IDs of the cases that failed,
/// errored or were inconclusive there, and whether its adapter could not be started (then every selected case
/// reruns). The adapter, connection, timeout and world are the command line's alone; no command, option or
/// path recorded in the report is run, used or opened (docs/ci.md, "What the suite trusts"). What the report
/// records of how it was made is compared with the command line, as text: a rerun that would use another
/// client or world than the report's is refused with what the report recorded, escaped, unless
/// `--override-report` is given.
enum RerunReport {
    /// What a report records about how its client was run: untrusted text, compared and shown escaped, never
    /// used.
    struct Recorded: Equatable {
        var adapter: String?
        var connection: String?
        /// `--world` as it was given, when it was.
        var world: String?
        /// The name of the profile the cases ran under; nil when no case ran.
        var worldName: String?

        var client: String {
            if let adapter { return "--adapter \(ConsoleText.escaped(ShellWord.quoted(adapter)))" }
            return connection == "process" ? "the built-in reference (--connection process)" : "the built-in reference (in-process)"
        }
    }

    static let overrideOption = "override-report"

    static func read(path: String) throws -> ComplianceReport {
        do {
            return try JSONReportWriter.read(path: path)
        } catch {
            throw UsageError("--rerun-failed needs a JSON report: \(error)", hint: "write one with --report json=PATH")
        }
    }

    /// The report's failed cases that the spec does not have (renamed or removed since): a warning naming
    /// them, and a usage error when none of its failed cases is left to rerun.
    static func checkKnown(_ failed: [String], in bundle: SpecBundle, path: String, console: any Console) throws {
        let known = Set(bundle.playableCases.map(\.id))
        let unknown = failed.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return }
        let shown = unknown.prefix(5).map { "'\(ConsoleText.escaped($0))'" }.joined(separator: ", ")
            + (unknown.count > 5 ? " and \(unknown.count - 5) more" : "")
        func cases(_ count: Int) -> String {
            count == 1 ? "case that failed, errored or was inconclusive in \(path) is"
                : "cases that failed, errored or were inconclusive in \(path) are"
        }
        if unknown.count == failed.count {
            throw UsageError("the \(failed.count == 1 ? "" : "\(failed.count) ")\(cases(failed.count)) not in the spec: \(shown)",
                             hint: "the report was made with another spec; run the suite, or choose cases with --case or -k")
        }
        console.err("run: warning: \(unknown.count) \(cases(unknown.count)) not in the spec, so not rerun: \(shown)\n")
    }

    static func recorded(_ report: ComplianceReport) -> Recorded {
        var recorded = Recorded(worldName: report.run.world)
        let words = ShellWord.split(report.run.command) ?? []
        var index = 0
        while index + 1 < words.count {
            let value = words[index + 1]
            switch words[index] {
            case "--adapter": recorded.adapter = value
            case "--connection": recorded.connection = value
            case "--world": recorded.world = value
            default:
                index += 1
                continue
            }
            index += 2
        }
        return recorded
    }

    /// Checks that the command line reruns the report's cases with the client and world the report was made
    /// with, unless `--override-report` is given; the arguments are never changed. Without `--rerun-failed`,
    /// nothing to check.
    static func check(_ arguments: ParsedArguments, bundle: SpecBundle) throws {
        guard let path = arguments.value("rerun-failed"), !arguments.flags.contains(overrideOption) else { return }
        let recorded = recorded(try read(path: path))
        try checkClient(arguments, recorded: recorded, path: path)
        try checkWorld(arguments, recorded: recorded, bundle: bundle, path: path)
    }

    private static func checkClient(_ arguments: ParsedArguments, recorded: Recorded, path: String) throws {
        let given: String
        if let adapter = arguments.value("adapter") {
            if let recordedAdapter = recorded.adapter, recordedAdapter == adapter || recordedAdapter == WorkingDirectory.relativizing(adapter) {
                return
            }
            given = "--adapter \(ShellWord.quoted(adapter))"
        } else {
            let connection = arguments.value("connection") ?? "in-process"
            if recorded.adapter == nil, (recorded.connection ?? "in-process") == connection { return }
            given = arguments.value("connection") == nil ? "the built-in reference (in-process)" : "--connection \(connection)"
        }
        if recorded.adapter != nil, arguments.value("adapter") == nil {
            throw UsageError("\(path) was made with \(recorded.client), not \(given); --rerun-failed takes only case IDs from a "
                             + "report and never runs a command it records",
                             hint: "pass --adapter with the adapter to rerun (the report's, if you trust it), or --\(overrideOption) "
                                + "to rerun its failed cases with \(given)")
        }
        throw UsageError("\(path) was made with \(recorded.client), not \(given)",
                         hint: "pass the report's client, or --\(overrideOption) to rerun its failed cases with yours")
    }

    private static func checkWorld(_ arguments: ParsedArguments, recorded: Recorded, bundle: SpecBundle, path: String) throws {
        let recordedText = recorded.worldName.map { "the world profile \(ConsoleText.escaped($0))" }
            ?? recorded.world.map { "--world \(ConsoleText.escaped(ShellWord.word($0)))" } ?? "the default world"
        guard let world = arguments.value("world") else {
            guard let recordedWorld = recorded.world else { return }
            throw UsageError("\(path) was made with --world \(ConsoleText.escaped(ShellWord.word(recordedWorld))), not the default world; "
                             + "--rerun-failed never reads a world a report names",
                             hint: "pass --world with the profile to rerun under, or --\(overrideOption) to rerun under the default")
        }
        // The profile the command line names (its file is the team's); the report's recorded text is only compared.
        let name = bundle.worlds.contains { $0.name == world } ? world : (try? WorldArgument.resolve(world, bundle: bundle))?.name
        let same: Bool
        if let recordedName = recorded.worldName, let name {
            same = name == recordedName
        } else {
            // No case ran, or the given profile cannot be read (reported later): compare the options as given.
            same = recorded.world.map { $0 == world || $0 == WorkingDirectory.relative(world) } ?? true
        }
        guard !same else { return }
        throw UsageError("\(path) was made under \(recordedText), not --world \(world)",
                         hint: "pass the report's world, or --\(overrideOption) to rerun its failed cases under yours")
    }
}
