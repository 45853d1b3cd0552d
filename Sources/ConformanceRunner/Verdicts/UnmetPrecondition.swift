import SimulatedWorld

/// What a case that could not run needed and did not get, as data: a `require` step that did not hold, a kill
/// point the client never reached, or (for a trigger variant of an adapter that did not declare its triggers)
/// a refresh the trigger never started. Reports group the cases that stopped for one reason by it, and name
/// the capability it points at ("the client never refreshed"), without reading the reason's words.
public struct UnmetPrecondition: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `requests:` of a `require` step: `path`, `endpoint`, `expected` (`1`, `at least 2`, `at most 1`), `observed`.
        case requests
        /// `state:`: `expected` and `observed` are states.
        case state
        /// `results:`: `expected` and `observed` are counts, `subject` says which (`ok`, `failed`, an error code).
        case results
        /// Any other field of a `require` step (`prompts`, `held`, `shown`, `transitions`, `tokensStored`, ...):
        /// `subject` names it.
        case other
        /// A `kill` step's point was never reached: `subject` is the point.
        case killPoint
        /// A trigger variant stopped with no refresh since its `refreshDue`: `subject` is the trigger,
        /// `endpoint` is `refresh`, `observed` is `0`, or `ahead` when the client refreshed ahead of expiry before
        /// it (docs/spec-format.md, "Held requests and the clock").
        case refreshTrigger
        /// A held request the client abandoned on its own deadline while the clock moved, before the `release`
        /// whose answer the rest of the case needed: `path` is the request's path, `subject` its method.
        case abandoned
    }

    public var kind: Kind
    /// 1-based step of the case.
    public var step: Int
    public var subject: String?
    /// For `requests`: the case path pattern, and the endpoint it names (`refresh`, `login`, `revoke`, `profile`,
    /// `resource`), whatever the world profile.
    public var path: String?
    public var endpoint: String?
    public var expected: String?
    public var observed: String?

    public init(kind: Kind, step: Int, subject: String? = nil, path: String? = nil, endpoint: String? = nil,
                expected: String? = nil, observed: String? = nil) {
        self.kind = kind
        self.step = step
        self.subject = subject
        self.path = path
        self.endpoint = endpoint
        self.expected = expected
        self.observed = observed
    }

    /// The endpoint a case path pattern names (`/auth/refresh` is `refresh`, `/resources/*` is `resource`).
    static func endpoint(ofCasePath pattern: String) -> String? {
        if let named = LogicalEndpoint.allCases.first(where: { $0.casePath == pattern }) { return named.rawValue }
        return pattern.hasPrefix("/resources/") || pattern.hasPrefix("/accounts/") ? LogicalEndpoint.resource.rawValue : nil
    }
}
