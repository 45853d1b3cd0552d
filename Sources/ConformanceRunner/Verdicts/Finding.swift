/// One violated requirement, with the evidence: the case, the step, and the trace events that show it.
public struct Finding: Sendable, Hashable {
    /// The requirement IDs the violation is charged to.
    public let requirements: [String]
    /// The oracle or expectation that found it, for example `oracle:single-refresh-in-flight` or `expect`.
    public let check: String
    public let message: String
    /// Trace event numbers.
    public let evidence: [Int]
    /// The 0-based case step during which the first evidence happened.
    public let step: Int

    public init(requirements: [String], check: String, message: String, evidence: [Int], step: Int) {
        self.requirements = requirements
        self.check = check
        self.message = message
        self.evidence = evidence
        self.step = step
    }
}
