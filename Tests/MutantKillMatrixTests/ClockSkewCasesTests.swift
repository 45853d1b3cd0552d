import ConformanceProtocol
import ConformanceRunner
import Mutants
import SpecModel
import Testing

/// The clock cases of Specs/cases/resilience.yaml judge CLOCK-SKEW-TOLERANT on harm: a client that refreshes once
/// when the device clock jumps passes, a refresh storm and a dead session fail, each by its oracle.
@Suite("Clock skew: the resilience cases judge harm, not one refresh")
struct ClockSkewCasesTests {
    static let clockCases = ["device-clock-days-ahead", "device-clock-days-behind", "clock-jumps-while-signed-in",
                             "clock-jumped-ahead-and-back-leaves-no-dead-session"]

    /// The clock cases alone, played against a variant (or the reference).
    static func run(_ name: String) throws -> RunResult {
        var bundle = try KillMatrixTests.bundle()
        bundle.caseFiles = bundle.caseFiles.compactMap { file in
            let cases = file.cases.filter { Self.clockCases.contains($0.id) }
            return cases.isEmpty ? nil : CaseFile(file: file.file, cases: cases)
        }
        let make = name == "reference" ? MutantRegistry.reference : try #require(MutantRegistry.named(name)).make
        return SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: name, make: make)).run(RunOptions(seed: 1))
    }

    static func outcome(_ id: String, in result: RunResult) throws -> CaseOutcome {
        try #require(result.outcomes.first { $0.caseID == id })
    }

    static func refreshes(_ outcome: CaseOutcome) -> Int {
        outcome.trace.received.filter {
            if case .http(_, _, let request) = $0.message { request.path == "/auth/refresh" } else { false }
        }.count
    }

    @Test("the reference passes every clock case without a refresh the server did not need")
    func referencePasses() throws {
        let result = try Self.run("reference")
        #expect(result.outcomes.count == Self.clockCases.count)
        #expect(result.outcomes.allSatisfy { $0.status == .pass }, "\(result.outcomes.map { "\($0.caseID): \($0.status)" })")
        #expect(Self.refreshes(try Self.outcome("clock-jumps-while-signed-in", in: result)) == 0)
    }

    @Test("a client whose expiry follows the wall clock refreshes once when it jumps a year ahead, and passes that case")
    func oneRefreshAfterAJumpPasses() throws {
        // The dead-session variant reads expiry on the wall clock; only a token it got while the clock was ahead,
        // refused after the clock came back, harms it.
        let result = try Self.run("dead-session-after-clock-jump-back")
        let jumps = try Self.outcome("clock-jumps-while-signed-in", in: result)
        #expect(jumps.status == .pass, "\(jumps.findings.map(\.message))")
        #expect(Self.refreshes(jumps) == 1)
        for id in ["device-clock-days-ahead", "device-clock-days-behind"] {
            #expect(try Self.outcome(id, in: result).status == .pass, "\(id)")
        }
    }

    @Test("a refresh for every request after the clock jumped is a storm: oracle no-refresh-storm-from-clock-skew")
    func stormFails() throws {
        let result = try Self.run("proactive-refresh-storm-after-clock-jump")
        let jumps = try Self.outcome("clock-jumps-while-signed-in", in: result)
        #expect(jumps.findings.contains { $0.check == "oracle:no-refresh-storm-from-clock-skew" && $0.requirements == ["CLOCK-SKEW-TOLERANT"] },
                "\(jumps.findings.map(\.message))")
        #expect(try Self.outcome("clock-jumped-ahead-and-back-leaves-no-dead-session", in: result).status == .pass)
    }

    @Test("a token believed valid after the clock jumped back, refused and never refreshed, is a dead session: oracle no-dead-session-from-clock-skew")
    func deadSessionFails() throws {
        let result = try Self.run("dead-session-after-clock-jump-back")
        let dead = try Self.outcome("clock-jumped-ahead-and-back-leaves-no-dead-session", in: result)
        #expect(dead.status == .fail)
        #expect(dead.findings.contains { $0.check == "oracle:no-dead-session-from-clock-skew" && $0.requirements == ["CLOCK-SKEW-TOLERANT"] },
                "\(dead.findings.map(\.message))")
        #expect(Set(dead.findings.flatMap(\.requirements)) == ["CLOCK-SKEW-TOLERANT"])
    }
}
