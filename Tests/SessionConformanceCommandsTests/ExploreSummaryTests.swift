@testable import ConformanceRunner
@testable import SessionConformanceCommands
import SimulatedWorld
import Testing

@Suite("The explore summary")
struct ExploreSummaryTests {
    /// One run in which one oracle charged two requirements, each with its own message.
    static func runChargingTwoRequirements() -> CaseOutcome {
        let check = "oracle:ended-account-leaves-no-preferences"
        let findings = [
            Finding(requirements: ["SIGNOUT-BLOCK-AND-CLEAR"], check: check, message: "alice's cache stayed after her sign-out",
                    evidence: [12], step: 3),
            Finding(requirements: ["CACHE-CLEAR-ON-SWITCH"], check: check, message: "bob's cache stayed after the switch to carol",
                    evidence: [30], step: 6),
        ]
        return CaseOutcome(caseID: "explore-seed-1-run-7", title: "run 7", file: "<explore>", requirements: [], status: .fail,
                           findings: findings, reason: nil, stderrTail: nil, trace: Trace(), vault: TokenVault(seed: 1), seed: 1)
    }

    @Test("each distinct failure's line shows the finding charged to its own requirements, not another of its run's")
    func eachFailureShowsItsOwnFinding() throws {
        let outcome = Self.runChargingTwoRequirements()
        let run = ExploreRunID(seed: 1, run: 7, focus: nil)
        var result = ExploreResult(options: ExploreOptions())
        result.runsDone = 10
        result.failures = ExploreFailureKey.of(outcome).sorted().map { ExploreFailure(key: $0, run: run, outcome: outcome) }
        #expect(result.failures.count == 2)
        let settings = try ExploreCommand.Settings(ParsedArguments())
        let text = ExploreSummary.render(result, shrinking: ExploreShrinking.Outcome(), settings: settings)
        let blocks = text.components(separatedBy: "\nFAIL ").dropFirst()
        let cache = try #require(blocks.first { $0.hasPrefix("CACHE-CLEAR-ON-SWITCH by ") }, "\(text)")
        let signOut = try #require(blocks.first { $0.hasPrefix("SIGNOUT-BLOCK-AND-CLEAR by ") }, "\(text)")
        #expect(cache.contains("  finding:   bob's cache stayed after the switch to carol\n"), "\(cache)")
        #expect(signOut.contains("  finding:   alice's cache stayed after her sign-out\n"), "\(signOut)")
    }

    @Test("client text in a finding reaches the summary escaped: no escape code, no carriage return, no line of its own")
    func clientTextIsEscaped() throws {
        let hostile = "shown \u{1B}[2J\r\n::error::forged"
        let finding = Finding(requirements: ["SESSION-STATE-MACHINE"], check: "oracle:failed-sign-in-leaves-signing-in",
                              message: "a sign-in failed (\(hostile)) and the client was still signingIn", evidence: [3], step: 1)
        let outcome = CaseOutcome(caseID: "explore-seed-1-run-3", title: "run 3", file: "<explore>", requirements: [], status: .fail,
                                  findings: [finding], reason: nil, stderrTail: nil, trace: Trace(), vault: TokenVault(seed: 1), seed: 1)
        var result = ExploreResult(options: ExploreOptions())
        result.runsDone = 3
        result.failures = ExploreFailureKey.of(outcome).map { ExploreFailure(key: $0, run: ExploreRunID(seed: 1, run: 3, focus: nil), outcome: outcome) }
        let text = ExploreSummary.render(result, shrinking: ExploreShrinking.Outcome(), settings: try ExploreCommand.Settings(ParsedArguments()))
        #expect(text.contains(#"  finding:   a sign-in failed (shown \e[2J\r\n::error::forged) and the client was still signingIn"#), "\(text)")
        #expect(!text.contains("\u{1B}") && !text.contains("\r"))
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("::") })
    }
}
