/// One thing `doctor` found wrong (or worth knowing) about an adapter: what was seen, what the protocol says,
/// where the protocol says it, and the fix.
public struct Diagnosis: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable {
        /// The adapter breaks the protocol or the client is not wired to the world: `run` would give errors or
        /// charge the client for the adapter's mistake.
        case problem
        /// Legal, but worth knowing before reading `run`'s verdicts (no deadline, a slow step).
        case note
    }

    /// A stable name for the kind of problem (`barrier-id`, `no-hello`, ...), for scripts and tests.
    public let check: String
    public let severity: Severity
    /// The probe during which it was seen; nil for the handshake.
    public let probe: String?
    /// What the adapter did, in the runner's words (the adapter's own text is quoted, never interpreted).
    public private(set) var seen: String
    /// What the protocol says.
    public let rule: String
    /// The section of docs/adapter-protocol.md (or another doc) that says it.
    public let section: String
    public let fix: String
    /// The later probes that showed the same thing, in the same words.
    public internal(set) var alsoIn: [String] = []

    public init(_ check: DoctorCheck, probe: String?, seen: String) {
        self.check = check.rawValue
        self.severity = check.severity
        self.probe = probe
        self.seen = seen
        self.rule = check.rule
        self.section = check.section
        self.fix = check.fix
    }

    /// The same diagnosis with `redact` applied to what was seen (token values become handles).
    func redacted(by redact: (String) -> String) -> Diagnosis {
        var copy = self
        copy.seen = redact(seen)
        return copy
    }

    /// The one line the console prints.
    public var line: String {
        let also = alsoIn.isEmpty ? "" : "; also " + alsoIn.joined(separator: ", ")
        let place = probe.map { " (probe \($0)\(also))" } ?? " (handshake)"
        return "\(severity.rawValue)[\(check)]\(place): \(seen). The protocol: \(rule) (\(section)). Fix: \(fix)"
    }
}
