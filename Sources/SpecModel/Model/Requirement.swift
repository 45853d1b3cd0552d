public import SpecYAML

/// How binding a requirement is. `informative` and `server` statements are kept in the catalogue,
/// with their sources, but no client can pass or fail them alone.
public enum RequirementLevel: String, Sendable, CaseIterable, Hashable {
    case must = "MUST"
    case should = "SHOULD"
    case may = "MAY"
    case informative
    case server

    /// Whether acceptance cases can test a client against it.
    public var isTestable: Bool { self == .must || self == .should || self == .may }
}

/// A verbatim passage of a design document.
public struct Quote: Sendable {
    public let document: Located<String>
    public let text: String
    public let location: SourceLocation
}

/// Where a later document contradicts an earlier one: which document the suite follows, and why.
public struct Resolution: Sendable {
    public let follows: Located<String>
    public let rejects: [Quote]
    public let why: String
}

/// One normative statement with a stable ID, its level and the quotes it comes from.
public struct Requirement: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let level: RequirementLevel
    public let title: String
    public let statement: String
    public let sources: [Quote]
    public let transitions: [Located<String>]
    public let invariants: [Located<String>]
    public let capability: Located<String>?
    public let resolution: Resolution?
    /// The situations a conclusive case must reach before the requirement can pass.
    public let evidence: [Situation]
}

/// A design document the requirements quote, stored verbatim beside the catalogue.
public struct SourceDocument: Sendable {
    public enum Coverage: String, Sendable, CaseIterable {
        /// Every passage must be quoted by a requirement or listed as unquoted with a reason.
        case complete
        /// Only the passages that add to or contradict the others are quoted.
        case partial
    }

    public struct UnquotedPassage: Sendable {
        public let text: String
        public let why: String
        public let location: SourceLocation
    }

    public let file: Located<String>
    public let title: String
    public let coverage: Coverage
    public let unquoted: [UnquotedPassage]
}

/// An optional client feature; cases that need it are skipped, with the reason, for adapters that do not declare it.
public struct Capability: Sendable, Identifiable {
    public let id: String
    public let location: SourceLocation
    public let description: String
}

/// The contents of `requirements.yaml`.
public struct RequirementsCatalogue: Sendable {
    public let file: String
    /// `specVersion`: the contract's version; nil only when it was missing or malformed (an error).
    public let specVersion: Located<SpecVersion>?
    public let documents: [SourceDocument]
    public let capabilities: [Capability]
    public let requirements: [Requirement]

    public func requirement(_ id: String) -> Requirement? {
        requirements.first { $0.id == id }
    }
}
