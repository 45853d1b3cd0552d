import ConformanceProtocol

/// How one case ended.
public enum CaseStatus: String, Sendable, Hashable, CaseIterable {
    case pass
    case fail
    /// The case needs a capability the adapter did not declare.
    case skipped
    /// The adapter crashed, hung or broke the protocol; nothing can be said of the requirements.
    case error
    /// A precondition of the case did not hold (the event it is about never happened, a kill point was never
    /// reached): it says nothing of the requirements and charges nothing. `reason` says which.
    case inconclusive
}

public struct CaseOutcome: Sendable {
    public let caseID: String
    public let title: String
    public let file: String
    public let requirements: [String]
    public let status: CaseStatus
    public let findings: [Finding]
    /// Why the case was skipped or errored.
    public let reason: String?
    /// The adapter's stderr tail when it errored.
    public let stderrTail: String?
    public let trace: Trace
    /// Token values to handles, for rendering the trace.
    public let vault: TokenVault
    public let seed: UInt64
    /// Wall-clock seconds the case took, measured by the suite runner. For reports only: it decides nothing.
    public internal(set) var duration: Double = 0
}
