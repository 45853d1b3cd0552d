import Foundation
public import SpecYAML

/// What loading a set of spec files produced: the bundle, every diagnostic, and the texts to render them with.
public struct SpecLoadResult: Sendable {
    public var bundle = SpecBundle()
    public var diagnostics: [Diagnostic] = []
    public var sources: [SourceText] = []
    public var files: [String] = []

    public init() {}

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    public var renderer: DiagnosticRenderer { DiagnosticRenderer(sources: sources) }
}

/// Reads spec files from disk and decodes them into one bundle.
public enum SpecLoader {
    /// Spec files below a folder, sorted so output is stable: every `.yaml` and `.yml` file.
    public static func specFiles(under directory: String) throws -> [String] {
        let base = URL(fileURLWithPath: directory)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [String] = []
        for case let url as URL in enumerator where ["yaml", "yml"].contains(url.pathExtension) {
            let relative = url.path.dropFirst(base.path.count).drop { $0 == "/" }
            files.append(directory.hasSuffix("/") ? directory + relative : directory + "/" + relative)
        }
        return files.sorted()
    }

    /// Loads the given files. A file that cannot be read is an error located at the file itself.
    public static func load(files: [String]) -> SpecLoadResult {
        var result = SpecLoadResult()
        for path in files {
            let start = SourceLocation(file: path, line: 1, column: 1)
            switch BoundedFile.read(path) {
            case .success(let bytes):
                load(bytes: bytes, file: path, into: &result)
            case .failure(.tooLarge(let size)):
                // Not read past the limit: the size alone is the error.
                result.files.append(path)
                result.diagnostics.append(.error(BoundedFile.tooLargeMessage(size), at: start))
            case .failure(.unreadable(let reason)):
                result.diagnostics.append(.error("cannot read the file (\(reason))", at: start))
            }
        }
        loadDocuments(into: &result)
        return result
    }

    /// Loads one file's bytes into a result; exposed for tests and tools that hold the text already.
    public static func load(bytes: [UInt8], file: String, into result: inout SpecLoadResult) {
        let parsed = YAMLLoader.load(bytes, file: file)
        result.sources.append(parsed.source)
        result.files.append(file)
        result.diagnostics.append(contentsOf: parsed.diagnostics)
        // A file that did not parse has nothing trustworthy to decode.
        guard !parsed.diagnostics.contains(where: { $0.severity == .error }) else { return }
        let decoding = SpecFileDecoder.decode(parsed.root, file: file)
        result.diagnostics.append(contentsOf: decoding.diagnostics)
        result.bundle.incomplete.formUnion(decoding.incomplete)
        switch decoding.file {
        case .requirements(let catalogue):
            if let existing = result.bundle.catalogue {
                result.diagnostics.append(.error(
                    "a second requirements file; a spec has exactly one",
                    at: SourceLocation(file: file, line: 1, column: 1),
                    notes: [.init("the first one", at: SourceLocation(file: existing.file, line: 1, column: 1))]))
            } else {
                result.bundle.catalogue = catalogue
            }
        case .stateMachine(let machine):
            if let existing = result.bundle.stateMachine {
                result.diagnostics.append(.error(
                    "a second state-machine file; a spec has exactly one",
                    at: SourceLocation(file: file, line: 1, column: 1),
                    notes: [.init("the first one", at: SourceLocation(file: existing.file, line: 1, column: 1))]))
            } else {
                result.bundle.stateMachine = machine
            }
        case .cases(let caseFile):
            result.bundle.caseFiles.append(caseFile)
        case .world(let world):
            if let existing = result.bundle.worldFiles.first(where: { $0.profile.name == world.profile.name }) {
                result.diagnostics.append(.error(
                    "a second world named '\(world.profile.name)'; each world profile needs its own name",
                    at: world.nameLocation, notes: [.init("the first one", at: existing.nameLocation)]))
            } else {
                result.bundle.worldFiles.append(world)
            }
        case nil:
            break
        }
    }

    /// Design documents live in `sources/` beside the requirements file.
    private static func loadDocuments(into result: inout SpecLoadResult) {
        guard let catalogue = result.bundle.catalogue else { return }
        let directory = (catalogue.file as NSString).deletingLastPathComponent
        for document in catalogue.documents {
            let name = document.file.value
            let path = directory.isEmpty ? "sources/\(name)" : "\(directory)/sources/\(name)"
            let bytes: [UInt8]
            switch BoundedFile.read(path) {
            case .success(let read):
                bytes = read
            case .failure(.tooLarge(let size)):
                let has = size.map { "\($0) bytes" } ?? "more than \(SpecLimits.fileBytes) bytes"
                result.diagnostics.append(.error(
                    "design document '\(path)' has \(has); at most \(SpecLimits.fileBytes) are read", at: document.file.location))
                continue
            case .failure(.unreadable(let reason)):
                result.diagnostics.append(.error("cannot read design document '\(path)' (\(reason))", at: document.file.location))
                continue
            }
            let source = SourceText(file: path, bytes: bytes)
            result.sources.append(source)
            result.bundle.documents[name] = DocumentText(
                name: name, path: path, source: source, text: String(decoding: bytes, as: UTF8.self))
        }
    }
}
