public import SpecYAML

/// One step of a case: a step kind and its arguments, kept as located YAML until the runner reads them.
public struct CaseStep: Sendable {
    public let kind: String
    public let arguments: YAMLNode
    public let location: SourceLocation
}

/// A scenario that the runner plays against a client, and the requirements it checks.
public struct AcceptanceCase: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let file: String
    public let title: String
    public let requirements: [Located<String>]
    public let transitions: [Located<String>]
    public let capabilities: [Located<String>]
    public let steps: [CaseStep]
}

/// The contents of one file under `cases/`.
public struct CaseFile: Sendable {
    public let file: String
    public let cases: [AcceptanceCase]
}

/// The step kinds the loader accepts. The runner gives them meaning.
public enum StepKind {
    public static let all: [String] = [
        "launch", "kill", "signIn", "signOut", "switchAccount", "request",
        "background", "foreground", "lock", "unlock", "online", "offline",
        "advance", "skewClock", "fault", "hold", "release", "barrier", "expect",
    ]
}
