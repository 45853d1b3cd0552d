import Foundation
public import SpecYAML

/// The outcome of linting: what loaded, every diagnostic in file order, and a summary.
public struct LintResult: Sendable {
    public let load: SpecLoadResult
    public let diagnostics: [Diagnostic]
    /// Whether the whole-spec checks ran (a spec folder was linted, not single files).
    public let checkedCompleteness: Bool

    public var bundle: SpecBundle { load.bundle }
    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
    public var warningCount: Int { diagnostics.filter { $0.severity == .warning }.count }
    public var summary: LintSummary { LintSummary(bundle) }

    public func rendered() -> String { load.renderer.render(diagnostics) }
}

/// Loads and cross-checks spec files.
///
/// A folder is a whole spec: everything in it is checked, including that every transition and invariant is
/// cited and that complete documents are quoted in full. Single files are checked on their own, against the
/// requirements and state machine of `specRoot` where they do not bring their own.
public enum SpecLinter {
    /// `checkedInvariants`: the invariants the runner's oracles check (`Oracles.checkedInvariants`); when given,
    /// a whole spec whose state machine has an invariant outside them is an error.
    public static func lint(paths: [String], specRoot: String = "Specs", checkedInvariants: Set<String>? = nil) -> LintResult {
        let targets = paths.isEmpty ? [specRoot] : paths
        var files: [String] = []
        var missing: [Diagnostic] = []
        var onlyFolders = true
        for path in targets {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(.error("no such file or folder", at: SourceLocation(file: path, line: 1, column: 1)))
                continue
            }
            if isDirectory.boolValue {
                files += (try? SpecLoader.specFiles(under: path)) ?? []
            } else {
                onlyFolders = false
                files.append(path)
            }
        }
        var load = SpecLoader.load(files: files)
        var contextFiles: Set<String> = []
        if !onlyFolders {
            contextFiles = addContext(from: specRoot, to: &load, alreadyLoaded: files)
        }
        missing += SpecPresence.check(targets: targets, specRoot: specRoot, files: files, bundle: load.bundle)
        var diagnostics = missing + load.diagnostics
        let whole = onlyFolders && missing.isEmpty
        // Context files only resolve references; what the files under lint do to them is not their problem.
        let crossChecks = ReferenceChecks.check(load.bundle) + QuoteChecks.check(load.bundle, requireCoverage: whole)
        diagnostics += crossChecks.filter { !contextFiles.contains($0.location.file) }
        if whole {
            diagnostics += CompletenessChecks.check(load.bundle, checkedInvariants: checkedInvariants)
        }
        return LintResult(load: load, diagnostics: sorted(diagnostics), checkedCompleteness: whole)
    }

    /// Single files are checked against the spec root's requirements and state machine when they lack their own.
    private static func addContext(
        from root: String, to load: inout SpecLoadResult, alreadyLoaded: [String]
    ) -> Set<String> {
        let context = [
            (load.bundle.catalogue == nil, "\(root)/requirements.yaml"),
            (load.bundle.stateMachine == nil, "\(root)/state-machine.yaml"),
        ]
        let files = context.filter { $0.0 && !alreadyLoaded.contains($0.1) && FileManager.default.fileExists(atPath: $0.1) }
            .map(\.1)
        guard !files.isEmpty else { return [] }
        let extra = SpecLoader.load(files: files)
        load.diagnostics += extra.diagnostics
        load.sources += extra.sources
        load.files += extra.files
        if load.bundle.catalogue == nil { load.bundle.catalogue = extra.bundle.catalogue }
        if load.bundle.stateMachine == nil { load.bundle.stateMachine = extra.bundle.stateMachine }
        load.bundle.documents.merge(extra.bundle.documents) { current, _ in current }
        load.bundle.incomplete.formUnion(extra.bundle.incomplete)
        return Set(files + extra.bundle.documents.values.map(\.path))
    }

    private static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { lhs, rhs in
            if lhs.element.location != rhs.element.location { return lhs.element.location < rhs.element.location }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
