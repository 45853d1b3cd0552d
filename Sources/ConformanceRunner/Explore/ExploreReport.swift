import ConformanceProtocol
import SimulatedWorld
import SpecModel

extension Explorer {
    /// The exploration as a run of the suite, for the report writers: one passing case standing for every run
    /// (covering the oracles' requirements), and one case per distinct failure (`failureOutcomes`, usually the
    /// shrunk cases played again), so a requirement an oracle failed is failed, with its evidence.
    public func runResult(_ result: ExploreResult, bundle: SpecBundle, failureOutcomes: [CaseOutcome],
                          summaryID: String, seconds: Double = 0) -> RunResult {
        let oracleRequirements = Oracles.all.flatMap(\.requirements).reduce(into: [String]()) { list, id in
            if !list.contains(id) { list.append(id) }
        }
        var summary = CaseOutcome(
            caseID: summaryID, title: "\(result.runsDone) generated runs of seed \(result.options.seed)",
            file: "<explore>", requirements: oracleRequirements, status: result.exploredNothing ? .inconclusive : .pass, findings: [],
            reason: "\(result.passed) passed, \(result.failed) failed, \(result.inconclusive) inconclusive, \(result.errored) errored"
                + (result.exploredNothingReason.map { "; \($0)" } ?? ""),
            stderrTail: nil, trace: Trace(), vault: TokenVault(seed: result.options.seed), seed: result.options.seed)
        // Wall time of the whole exploration, for the report only.
        summary.duration = seconds
        // What the runs put the client through: a requirement passes only on evidence some run reached.
        summary.reached = Set(result.coverage.keys)
        let outcomes = [summary] + failureOutcomes
        let verdicts = bundle.catalogue.map {
            VerdictBuilder.verdicts(catalogue: $0, outcomes: outcomes, capabilities: capabilities)
        } ?? []
        var run = RunResult(implementation: implementation, capabilities: capabilities, offlineResources: offlineResources,
                            adapter: launcher.description, seed: result.options.seed, outcomes: outcomes,
                            requirements: verdicts, startupFailure: result.startupFailure)
        run.world = world
        run.interruptedBy = result.interruptedBy
        return run
    }
}
