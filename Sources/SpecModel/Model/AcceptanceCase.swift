public import SpecYAML

/// One step of a case: its kind, what it does, and its arguments as written (for messages and reports).
public struct CaseStep: Sendable {
    public let kind: String
    public let action: StepAction
    public let arguments: YAMLNode
    public let location: SourceLocation

    public init(kind: String, action: StepAction, arguments: YAMLNode, location: SourceLocation) {
        self.kind = kind
        self.action = action
        self.arguments = arguments
        self.location = location
    }
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

    public init(id: String, location: SourceLocation, file: String, title: String, requirements: [Located<String>],
                transitions: [Located<String>], capabilities: [Located<String>], steps: [CaseStep]) {
        self.id = id
        self.location = location
        self.file = file
        self.title = title
        self.requirements = requirements
        self.transitions = transitions
        self.capabilities = capabilities
        self.steps = steps
    }
}

/// The contents of one file under `cases/`.
public struct CaseFile: Sendable {
    public let file: String
    public let cases: [AcceptanceCase]

    public init(file: String, cases: [AcceptanceCase]) {
        self.file = file
        self.cases = cases
    }
}

/// The step kinds of the case language (docs/spec-format.md); the runner gives them meaning.
public enum StepKind {
    public static let systemEvents = ["background", "foreground", "backgroundRefresh", "lock", "unlock", "online", "offline"]
    public static let all: [String] = [
        "launch", "kill", "signIn", "signOut", "switchAccount", "request",
    ] + systemEvents + [
        "advance", "skewClock", "fault", "storageFault", "hold", "release", "configure", "revoke", "reboot", "barrier", "schedule", "expect", "require",
    ]
    /// The accounts of the simulated world that `signIn: { account: ... }` can name.
    public static let accounts = ["alice", "bob", "carol"]
}
