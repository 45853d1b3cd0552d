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
    /// The refresh triggers the case is played under, one variant each (empty: the case has no `refreshDue`).
    public let triggers: [Located<RefreshTrigger>]
    /// Set on a variant: the trigger its `refreshDue` steps stand for.
    public let trigger: RefreshTrigger?
    /// The ID as written in the spec; a variant's `id` adds its trigger: `base[expiry]`.
    public let baseID: String
    public let steps: [CaseStep]
    /// `timeouts: true`: the case is about the client's own deadlines, so it may move the clock past a held
    /// request (`HeldClockRule`).
    public let timeouts: Bool

    public init(id: String, location: SourceLocation, file: String, title: String, requirements: [Located<String>],
                transitions: [Located<String>], capabilities: [Located<String>], triggers: [Located<RefreshTrigger>] = [],
                trigger: RefreshTrigger? = nil, baseID: String? = nil, steps: [CaseStep], timeouts: Bool = false) {
        self.id = id
        self.location = location
        self.file = file
        self.title = title
        self.requirements = requirements
        self.transitions = transitions
        self.capabilities = capabilities
        self.triggers = triggers
        self.trigger = trigger
        self.baseID = baseID ?? id
        self.steps = steps
        self.timeouts = timeouts
    }

    /// What the runner plays: the case itself, or one variant per trigger it lists, each with the steps that
    /// apply under that trigger (`under`).
    public var variants: [AcceptanceCase] {
        guard trigger == nil, !triggers.isEmpty else { return [self] }
        return triggers.map { trigger in
            AcceptanceCase(id: Self.variantID(id, trigger.value), location: location, file: file, title: title,
                           requirements: requirements, transitions: transitions, capabilities: capabilities,
                           triggers: triggers, trigger: trigger.value, baseID: id,
                           steps: steps.filter { $0.applies(under: trigger.value) }, timeouts: timeouts)
        }
    }

    /// `base[trigger]`, the ID of a case's variant.
    public static func variantID(_ base: String, _ trigger: RefreshTrigger) -> String { "\(base)[\(trigger.rawValue)]" }
}

/// What starts a refresh in a variant of a case (`triggers`, the `refreshDue` step; docs/spec-format.md).
public enum RefreshTrigger: String, Sendable, Hashable, CaseIterable {
    /// The server stops accepting the access tokens issued so far, before the client's clock says they
    /// expired: the next request gets a 401.
    case unauthorized
    /// The virtual clock reaches the access token's expiry (the server refuses it from then on too).
    case expiry
    /// As `expiry`, then the operating system wakes the app for a background refresh task.
    case background

    /// For messages: what the client was expected to refresh on.
    public var describedAsCause: String {
        switch self {
        case .unauthorized: "a 401 for an access token its clock still counted valid"
        case .expiry: "its access token reaching expiry on the clock"
        case .background: "a background refresh task"
        }
    }
}

extension CaseStep {
    /// Whether this is a `refreshDue` step, the one a case's `triggers` stand for.
    public var isRefreshDue: Bool { if case .refreshDue = action { true } else { false } }

    /// Whether the step is played in the variant of `trigger`: an `expect` or `require` with `under` only
    /// under the triggers it names.
    func applies(under trigger: RefreshTrigger) -> Bool {
        guard let under = action.expectation?.under, !under.isEmpty else { return true }
        return under.contains { $0.value == trigger }
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
        "advance", "skewClock", "refreshDue", "fault", "storageFault", "hold", "release", "configure", "revoke", "reboot", "barrier", "schedule", "expect", "require",
    ]
    /// The accounts of the simulated world that `signIn: { account: ... }` can name.
    public static let accounts = ["alice", "bob", "carol"]
}
