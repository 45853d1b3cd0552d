import ConformanceProtocol
import SimulatedWorld
import SpecModel

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
    /// Grouped: identical findings are one, with a count (`Finding.grouped(_:)`).
    public let findings: [Finding]
    /// Why the case was skipped, errored or was inconclusive.
    public let reason: String?
    /// The adapter's stderr tail when it errored.
    public let stderrTail: String?
    public let trace: Trace
    /// Token values to handles, for rendering the trace.
    public let vault: TokenVault
    public let seed: UInt64
    /// Wall-clock seconds the case took, measured by the suite runner. For reports only: it decides nothing.
    public internal(set) var duration: Double = 0
    /// The refresh trigger a variant was played under (`base[trigger]`); nil for a case without `triggers`.
    public internal(set) var trigger: RefreshTrigger?
    /// The situations its trace shows the client was put through; empty unless the case was conclusive
    /// (passed or failed): the evidence requirements need before they can pass.
    public internal(set) var reached: Set<Situation> = []
    /// For a case that stopped inconclusive: what its remaining `expect` steps would have checked.
    public internal(set) var wouldHaveChecked: [String] = []
    /// For a case that stopped inconclusive, or a trigger variant skipped because the trigger started no refresh:
    /// what it needed, as data (`reason` says it in words).
    public internal(set) var unmet: UnmetPrecondition?

    /// `findings` are grouped here, so the runner's verdicts, the reports and the console all see one finding
    /// per kind of violation and case. The findings, the reason and the trace are kept within ``CaseRetention``'s
    /// budget, so a run's memory grows by a bounded amount per case.
    /// A trigger variant skipped because the client's refreshes do not come from its trigger, or come before the
    /// case can use them (`VerdictRule.triggerNotUsed`): it charges and passes nothing, and a certified client
    /// may have such variants.
    public var skippedForItsTrigger: Bool {
        status == .skipped && (reason ?? "").hasPrefix(VerdictRule.triggerNotUsed)
    }

    public init(caseID: String, title: String, file: String, requirements: [String], status: CaseStatus, findings: [Finding],
                reason: String?, stderrTail: String?, trace: Trace, vault: TokenVault, seed: UInt64) {
        self.caseID = caseID
        self.title = title
        self.file = file
        self.requirements = requirements
        self.status = status
        self.findings = CaseRetention.findings(Finding.grouped(findings), vault: vault)
        self.reason = reason.map { CaseRetention.text($0, vault: vault) }
        self.stderrTail = CaseRetention.dropsVault(vault) ? stderrTail.map { CaseRetention.text($0, vault: vault, limit: .max) } : stderrTail
        self.trace = CaseRetention.trace(trace, findings: self.findings, vault: vault)
        // Every kept text shows handles already when the case issued too many tokens to keep them (see CaseRetention).
        self.vault = CaseRetention.dropsVault(vault) ? TokenVault(seed: seed) : vault
        self.seed = seed
    }
}
