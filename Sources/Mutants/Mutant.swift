public import ConformanceProtocol

/// A known-bad client: the reference with exactly one defect, or a port of the naive code of
/// Specs/sources/003_a7334a1b43f9a998.txt. The suite must reject each, for the right reason.
public struct Mutant: Sendable {
    public enum Kind: String, Sendable {
        /// SessionKit with one `SessionKitDefect`.
        case defect
        /// A faithful port of 003's naive iOS, Android or Flutter code.
        case port
    }

    public let name: String
    public let kind: Kind
    /// What is wrong with it, in one line.
    public let defect: String
    /// The design documents' words it violates (docs/known-bad.md quotes them in full).
    public let violates: String
    /// The requirements the suite must fail it on: the ones its defect breaks.
    public let expected: [String]
    /// Every other requirement the run fails, with why: the documented superset. A kill matrix run fails
    /// exactly `expected` plus these.
    public let alsoFails: [(id: String, why: String)]
    /// For a variant exploration found while every hand-written case passed it: the IDs of the cases its
    /// failures were shrunk to, committed in Specs/cases/explored.yaml (the only cases that kill it).
    public let shrunkCases: [String]
    /// For such a variant: the hand-written cases added after exploration found it that kill it too.
    public let laterCases: [String]
    private let factory: @Sendable () -> any InProcessClient

    init(name: String, kind: Kind, defect: String, violates: String, expected: [String],
         alsoFails: [(id: String, why: String)] = [], shrunkCases: [String] = [], laterCases: [String] = [], make: @escaping @Sendable () -> any InProcessClient) {
        self.shrunkCases = shrunkCases
        self.laterCases = laterCases
        self.name = name
        self.kind = kind
        self.defect = defect
        self.violates = violates
        self.expected = expected
        self.alsoFails = alsoFails
        factory = make
    }

    /// A fresh instance, for a case or for a process.
    public func make() -> any InProcessClient { factory() }

    /// `expected` and the documented superset together: what the kill matrix asserts the run fails.
    public var documentedFailures: Set<String> { Set(expected).union(alsoFails.map(\.id)) }
}
