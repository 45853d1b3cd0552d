import ConformanceReports
import Foundation
import SpecModel

/// `--rerun-failed REPORT.json` plays the report's failed cases with the client and world the report was made
/// with: its reproduce command records `--adapter`, `--connection`, `--timeout` and `--world`, and its `world`
/// the profile the cases ran under. Never the built-in reference for an adapter's report by accident.
enum RerunReport {
    /// What a report records about how its client was run.
    struct Recorded: Equatable {
        var adapter: String?
        var connection: String?
        var timeout: String?
        /// `--world` as it was given, when it was.
        var world: String?
        /// The name of the profile the cases ran under; nil when no case ran.
        var worldName: String?

        var client: String {
            if let adapter { return "--adapter \(ShellWord.quoted(adapter))" }
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
        let shown = unknown.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
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
            case "--timeout": recorded.timeout = value
            case "--world": recorded.world = value
            default:
                index += 1
                continue
            }
            index += 2
        }
        return recorded
    }

    /// The arguments with the report's adapter, connection, timeout and world where none were given. A given
    /// `--adapter`, `--connection` or `--world` that differs from the report's is a usage error, unless
    /// `--override-report` is given. Without `--rerun-failed`, the arguments unchanged.
    static func apply(_ arguments: ParsedArguments, bundle: SpecBundle, console: any Console) throws -> ParsedArguments {
        guard let path = arguments.value("rerun-failed") else { return arguments }
        let recorded = recorded(try read(path: path))
        let override = arguments.flags.contains(overrideOption)
        var effective = arguments
        if !override { try checkClient(arguments, recorded: recorded, path: path) }
        if !override { try checkWorld(arguments, recorded: recorded, bundle: bundle, path: path) }
        let choosesClient = arguments.value("adapter") != nil || arguments.value("connection") != nil
        if !choosesClient {
            if let adapter = recorded.adapter { effective.values["adapter"] = [adapter] }
            if let connection = recorded.connection { effective.values["connection"] = [connection] }
            if recorded.adapter != nil || recorded.connection != nil {
                console.err("run: rerunning with the client of \(path): \(recorded.client)\n")
            }
        }
        if arguments.value("timeout") == nil, let timeout = recorded.timeout { effective.values["timeout"] = [timeout] }
        if arguments.value("world") == nil {
            if let world = recorded.world {
                effective.values["world"] = [world]
            } else if let name = recorded.worldName, bundle.worlds.contains(where: { $0.name == name }) {
                effective.values["world"] = [name]
            }
        }
        return effective
    }

    private static func checkClient(_ arguments: ParsedArguments, recorded: Recorded, path: String) throws {
        let given: String?
        if let adapter = arguments.value("adapter") {
            given = recorded.adapter.map { $0 == adapter || $0 == WorkingDirectory.relativizing(adapter) } == true
                ? nil : "--adapter \(ShellWord.quoted(adapter))"
        } else if let connection = arguments.value("connection") {
            given = recorded.adapter == nil && (recorded.connection ?? "in-process") == connection ? nil : "--connection \(connection)"
        } else {
            given = nil
        }
        if let given {
            throw UsageError("\(path) was made with \(recorded.client), not \(given)",
                             hint: "drop \(given.prefix { $0 != " " }) to rerun with the report's client, or pass --\(overrideOption) "
                                + "to rerun its failed cases with yours")
        }
    }

    private static func checkWorld(_ arguments: ParsedArguments, recorded: Recorded, bundle: SpecBundle, path: String) throws {
        guard let world = arguments.value("world") else { return }
        let name = bundle.worlds.contains { $0.name == world } ? world : (try? WorldArgument.resolve(world, bundle: bundle))?.name
        let same: Bool
        if let recordedName = recorded.worldName, let name {
            same = name == recordedName
        } else {
            // No case ran, or the given profile cannot be read (reported later): compare the options as given.
            same = recorded.world.map { $0 == world || $0 == WorkingDirectory.relative(world) } ?? true
        }
        guard !same else { return }
        let recordedText = recorded.worldName.map { "the world profile \($0)" } ?? recorded.world.map { "--world \($0)" } ?? "no world"
        throw UsageError("\(path) was made under \(recordedText), not --world \(world)",
                         hint: "drop --world to rerun under the report's, or pass --\(overrideOption) to rerun its failed cases under yours")
    }
}
