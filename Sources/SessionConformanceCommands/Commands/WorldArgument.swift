import ConformanceReports
import Foundation
import SimulatedWorld
import SpecModel

/// `--world FILE|NAME`: a world profile file, or the name of one in the spec's `worlds/` folder.
enum WorldArgument {
    /// What went wrong reading a `--world` profile: the rendered diagnostics, or a one-line problem.
    struct Failure: Error {
        let rendered: String
        var errorCount = 1
    }

    /// A `--world` whose errors were printed already; the command ends with `.specOrUsageError`.
    struct Reported: Error {}

    /// The profile `--world` names, or nil without the option. A profile file that cannot be read is printed
    /// in compiler form, followed by `<command>: the world profile X has errors`, and thrown as `Reported`;
    /// a name that is neither a file nor one of the spec's worlds is a `UsageError` naming the closest.
    static func option(_ arguments: ParsedArguments, bundle: SpecBundle, command: String,
                       console: any Console) throws -> WorldProfile? {
        guard let text = arguments.value("world") else { return nil }
        return try profile(text, bundle: bundle, command: command, console: console)
    }

    /// The profile `text` names, with `option`'s errors.
    static func profile(_ text: String, bundle: SpecBundle, command: String, console: any Console) throws -> WorldProfile {
        if let unknown = unknownName(text, bundle: bundle) { throw unknown }
        do {
            return try resolve(text, bundle: bundle)
        } catch {
            console.err(error.rendered)
            console.err("\(command): the world profile \(text) has errors\n")
            throw Reported()
        }
    }

    /// The usage error for a `--world` that is neither a file nor one of the spec's worlds; nil otherwise.
    /// Whether `--world TEXT` names a world profile file (an existing file, not a folder) rather than a spec world.
    static func names(file text: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    static func unknownName(_ text: String, bundle: SpecBundle) -> UsageError? {
        guard !FileManager.default.fileExists(atPath: text), !bundle.worlds.contains(where: { $0.name == text }) else { return nil }
        let names = bundle.worlds.map(\.name)
        let hint = Suggestion.closest(to: text, among: names).map { "did you mean '\($0)'?" }
            ?? "give a world profile file, or one of the spec's worlds"
        return UsageError("no world profile '\(text)': not a file, and the spec's worlds are "
                          + (names.isEmpty ? "none" : names.joined(separator: ", ")), hint: hint)
    }

    /// ` --world X` for a command that reproduces this one (relative to the working directory, quoted for a
    /// shell where it needs to be), or "" without the option.
    static func reproduceOption(_ arguments: ParsedArguments) -> String {
        guard let world = arguments.value("world").map({ WorkingDirectory.relative($0) }) else { return "" }
        return " --world " + ShellWord.word(world)
    }

    /// The profile `text` names: an existing file is read as a world file; otherwise a name among the
    /// spec's worlds (`bundle`).
    static func resolve(_ text: String, bundle: SpecBundle) throws(Failure) -> WorldProfile {
        if names(file: text) { return try load(file: text) }
        if let profile = bundle.worlds.first(where: { $0.name == text }) { return profile }
        let names = bundle.worlds.map(\.name)
        throw Failure(rendered: "error: no world profile '\(text)': not a file, and the spec's worlds are "
                      + (names.isEmpty ? "none" : names.joined(separator: ", ")) + "\n")
    }

    /// Reads one world file; its errors render in compiler form.
    static func load(file: String) throws(Failure) -> WorldProfile {
        let load = SpecLoader.load(files: [file])
        guard !load.hasErrors else {
            let diagnostics = load.diagnostics.enumerated().sorted {
                $0.element.location == $1.element.location ? $0.offset < $1.offset : $0.element.location < $1.element.location
            }.map(\.element)
            throw Failure(rendered: load.renderer.render(diagnostics),
                          errorCount: load.diagnostics.filter { $0.severity == .error }.count)
        }
        guard let profile = load.bundle.worlds.first else {
            throw Failure(rendered: "\(file):1:1: error: not a world profile; a world file starts with 'kind: world'\n")
        }
        return profile
    }
}
