import ConformanceProtocol
import ConformanceRunner
import LongTests
import Mutants
import ReferenceAdapter
@testable import SpecModel
import Testing

/// Every case of Specs/cases replayed with a kill point before or after the storage change of each step that
/// drives the client, and a relaunch after that step. The case's own checks are dropped (they assume no kill);
/// the oracles judge the trace, and the reference must give none of them a finding.
@Suite("The reference survives a kill at every storage change of every case")
struct KillSweepTests {
    /// Steps that make the client work, so a kill point armed before them can land during them.
    static let drivingSteps: Set<String> = Set(["launch", "signIn", "signOut", "switchAccount", "request", "advance", "release"]
        + StepKind.systemEvents)

    /// The variants of one case: for each driving step and each storage kill point, the case with the kill armed
    /// before the step and a `launch` after it (unless the case launches next), without `expect` and `require` steps.
    static func variants(of original: AcceptanceCase) -> [AcceptanceCase] {
        let steps = original.steps.filter { $0.action.expectation == nil }
        var variants: [AcceptanceCase] = []
        // Only where the client surely runs: after a launch, and not between the case's own kill or reboot and
        // its next launch (a kill point armed with no client running would land on the next process instead).
        var running = false
        for (position, step) in steps.enumerated() {
            if step.kind == "kill" || step.kind == "reboot" { running = false }
            if step.kind == "launch" { running = true }
            guard running, drivingSteps.contains(step.kind) else { continue }
            for point in [KillPoint.beforeStorageWrite, .afterStorageWrite] {
                let kill = CaseStep(kind: "kill", action: .kill(point), arguments: step.arguments, location: step.location)
                let relaunch = CaseStep(kind: "launch", action: .launch, arguments: step.arguments, location: step.location)
                var swept = steps
                // The case relaunches by itself when the next step that drives the client is a launch.
                let next = steps[(position + 1)...].first { drivingSteps.contains($0.kind) || $0.kind == "reboot" }
                if next?.kind != "launch" { swept.insert(relaunch, at: position + 1) }
                swept.insert(kill, at: position)
                variants.append(AcceptanceCase(
                    id: "\(original.id)~kill-\(point.rawValue)-before-step-\(position + 1)", location: original.location,
                    file: original.file, title: original.title, requirements: original.requirements,
                    transitions: original.transitions, capabilities: original.capabilities, steps: swept))
            }
        }
        return variants
    }

    /// The variants of one case with `times` storage changes of `kind` failing from before each step that drives
    /// the client, without `expect` and `require` steps.
    static func writeFailureVariants(of original: AcceptanceCase, kind: StorageFaultKind = .writeFailure, times: Int = 1) -> [AcceptanceCase] {
        let steps = original.steps.filter { $0.action.expectation == nil }
        let name = kind == .writeFailure ? "write-failure" : "preferences-failure-\(times)"
        return steps.enumerated().filter { drivingSteps.contains($0.element.kind) }.map { position, step in
            var swept = steps
            swept.insert(CaseStep(kind: "storageFault", action: .storageFault(kind: kind, times: times),
                                  arguments: step.arguments, location: step.location), at: position)
            return AcceptanceCase(
                id: "\(original.id)~\(name)-before-step-\(position + 1)", location: original.location,
                file: original.file, title: original.title, requirements: original.requirements,
                transitions: original.transitions, capabilities: original.capabilities, steps: swept)
        }
    }

    /// The cases the default sweeps take: a refresh that rotates the pair, an offline sign-out that must survive a
    /// kill, a sign-out whose secure-storage clear is refused (where a client that tells the end before it is
    /// durable comes back signed in), and a sign-out interrupted before an account switch. The long tests sweep
    /// every case.
    static let representativeCases: Set<String> = [
        "rotation-never-resends-an-old-refresh-token", "offline-sign-out-survives-process-death",
        "secure-write-failure-at-sign-out-is-not-undone-by-a-restart", "cache-of-interrupted-sign-out-never-reaches-the-next-account",
    ]

    static func isRepresentative(_ acceptanceCase: AcceptanceCase) -> Bool { representativeCases.contains(acceptanceCase.id) }

    static let writeFaults = [(StorageFaultKind.writeFailure, 1), (.preferencesWriteFailure, 1), (.preferencesWriteFailure, 2),
                              (.preferencesWriteFailure, 3)]

    @Test("no oracle finds fault with the reference when storage changes fail before any step of a refresh, a sign-out and a switch",
          arguments: writeFaults)
    func referenceSurvivesWriteFailures(_ kind: StorageFaultKind, _ times: Int) throws {
        let variants = try Self.writeFailureSweep(kind, times, cases: Self.isRepresentative)
        #expect(variants >= Self.representativeCases.count)
    }

    @Test("no oracle finds fault with the reference when storage changes fail before any step of any case",
          .long, arguments: writeFaults)
    func referenceSurvivesEveryWriteFailure(_ kind: StorageFaultKind, _ times: Int) throws {
        let variants = try Self.writeFailureSweep(kind, times)
        #expect(variants > 100)
    }

    /// Plays the write-failure variants of the cases `filter` keeps against the reference, expects no failure and
    /// returns how many variants were played.
    static func writeFailureSweep(_ kind: StorageFaultKind, _ times: Int,
                                  cases filter: (AcceptanceCase) -> Bool = { _ in true }) throws -> Int {
        var bundle = try ReferenceConformanceTests.bundle()
        // Three refused preferences changes at an end (its note, a cache removal, the note again) in a case whose
        // secure-storage clear is refused too leave no store that takes anything: no client can make that end
        // durable, so those cases are swept with fewer preferences failures only.
        let securelyFaulted = { (acceptanceCase: AcceptanceCase) in
            acceptanceCase.steps.contains { if case .storageFault(.writeFailure, _) = $0.action { true } else { false } }
        }
        bundle.caseFiles = bundle.caseFiles.map { file in
            CaseFile(file: file.file, cases: file.cases.filter { filter($0) && (kind == .writeFailure || times < 3 || !securelyFaulted($0)) }
                .flatMap { Self.writeFailureVariants(of: $0, kind: kind, times: times) })
        }
        let result = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process") { ReferenceClientAdapter() })
            .run(RunOptions(seed: 1, jobs: 2))
        let failed = result.outcomes.filter { $0.status == .fail || $0.status == .error }
        #expect(failed.count == 0, "\(failed.count) of \(result.outcomes.count) variants failed:\n\(Self.described(failed))")
        return result.outcomes.count
    }

    static func described(_ failed: [CaseOutcome]) -> String {
        failed.prefix(15).map { outcome in
            "\(outcome.caseID): \(outcome.status.rawValue) \(outcome.reason ?? "")\n"
                + outcome.findings.map { "  [\($0.requirements.joined(separator: ", "))] \($0.message)" }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Every case swept, played against `make`; the outcomes of the variants whose kill landed.
    static func sweep(cases filter: (AcceptanceCase) -> Bool = { _ in true },
                      _ make: @escaping @Sendable () -> any InProcessClient) throws -> (landed: [CaseOutcome], all: Int) {
        var bundle = try ReferenceConformanceTests.bundle()
        bundle.caseFiles = bundle.caseFiles.map { file in
            CaseFile(file: file.file, cases: file.cases.filter(filter).flatMap(Self.variants))
        }
        let result = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process", make: make))
            .run(RunOptions(seed: 1, jobs: 2))
        // A variant whose kill point found no storage change to land on is the unchanged case plus a second
        // launch of a running client; only the variants where the kill landed are judged.
        let landed = result.outcomes.filter { outcome in
            outcome.trace.events.contains {
                if case .processKilled(_, let reason) = $0.kind { return reason.hasPrefix("killed before the storage write") || reason.hasPrefix("killed after the storage write") }
                return false
            }
        }
        return (landed, result.outcomes.count)
    }

    @Test("the sweep fails a client that tells a sign-out before it is durable: the restart brings the session back")
    func sweepCatchesEndToldBeforeDurable() throws {
        let variant = try #require(MutantRegistry.named("end-told-before-durable"))
        let (landed, _) = try Self.sweep(cases: { Self.isRepresentative($0) && $0.steps.contains { $0.kind == "signOut" || $0.kind == "switchAccount" } },
                                         variant.make)
        let resurrected = landed.filter { $0.findings.contains { $0.check == "oracle:ended-session-never-resurrected" } }
        #expect(!resurrected.isEmpty, "no swept variant brought an ended session back")
    }

    @Test("no oracle finds fault with the reference when it is killed at any storage change of a refresh, a sign-out and a switch")
    func referenceSurvivesKillPoints() throws {
        let (landedKills, all) = try Self.sweep(cases: Self.isRepresentative) { ReferenceClientAdapter() }
        #expect(all >= Self.representativeCases.count)
        Self.expectNoFailure(landedKills, of: all)
    }

    @Test("no oracle finds fault with the reference when it is killed at any storage change of any case", .long)
    func referenceSurvivesEveryKillPoint() throws {
        let (landedKills, all) = try Self.sweep { ReferenceClientAdapter() }
        #expect(all > 100, "the sweep plays every case with kills; it found only \(all) variants")
        Self.expectNoFailure(landedKills, of: all)
    }

    static func expectNoFailure(_ landedKills: [CaseOutcome], of all: Int) {
        let failed = landedKills.filter { $0.status == .fail || $0.status == .error }
        #expect(failed.count == 0, "\(failed.count) of \(landedKills.count) variants with a landed kill failed:\n\(Self.described(failed))")
        #expect(landedKills.count > all / 4, "most kill points should land; only \(landedKills.count) did")
    }
}
