/// One problem found in a spec file, rendered like a compiler diagnostic.
public struct Diagnostic: Sendable, Hashable, Error {
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
        case note
    }

    /// A secondary location that explains the diagnostic, such as where a duplicated key was first defined.
    public struct Note: Sendable, Hashable {
        public let location: SourceLocation
        public let message: String

        public init(_ message: String, at location: SourceLocation) {
            self.message = message
            self.location = location
        }
    }

    public let severity: Severity
    public let location: SourceLocation
    public let message: String
    public let notes: [Note]

    public init(_ severity: Severity, _ message: String, at location: SourceLocation, notes: [Note] = []) {
        self.severity = severity
        self.message = message
        self.location = location
        self.notes = notes
    }

    public static func error(_ message: String, at location: SourceLocation, notes: [Note] = []) -> Diagnostic {
        Diagnostic(.error, message, at: location, notes: notes)
    }

    public static func warning(_ message: String, at location: SourceLocation, notes: [Note] = []) -> Diagnostic {
        Diagnostic(.warning, message, at: location, notes: notes)
    }
}

/// Collects the diagnostics of one load, so every problem of a file is reported rather than only the first.
public struct DiagnosticList: Sendable {
    public private(set) var diagnostics: [Diagnostic] = []

    public init() {}

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    public mutating func append(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    public mutating func append(contentsOf other: [Diagnostic]) {
        diagnostics.append(contentsOf: other)
    }

    public mutating func error(_ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.append(.error(message, at: location, notes: notes))
    }
}
