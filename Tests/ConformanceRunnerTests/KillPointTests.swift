import ConformanceProtocol
@testable import ConformanceRunner
import JSONCore
import SpecModel
import Testing

/// Kill points (`kill: { at: beforeStorageWrite | afterStorageWrite }`) land on the client's next storage change
/// of any kind, or disarm and make the case inconclusive; `kill: {}` with no client running is a noted no-op.
@Suite("kill points")
struct KillPointTests {
    static func kills(_ outcome: CaseOutcome) -> [String] {
        TraceIndex(outcome.trace).kills.map(\.value)
    }

    static func notes(_ outcome: CaseOutcome) -> [String] {
        outcome.trace.events.compactMap { event in
            if case .world(let text) = event.kind { return text }
            return nil
        }
    }

    static func discarded(_ outcome: CaseOutcome) -> [String] {
        outcome.trace.events.compactMap { event in
            if case .writeDiscarded(let id) = event.kind { return id }
            return nil
        }
    }

    // MARK: What a kill point lands on

    @Test("a kill before the storage write lands on the sign-out's secure delete, which is discarded")
    func landsBeforeSecureDelete() throws {
        let yaml = Harness.caseFile("""
          - id: kill-before-sign-out-delete
            title: Killed as the sign-out deletes the stored session
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: { at: beforeStorageWrite }
              - signOut: {}
              - expect: { for: [PROCESS-DEATH-SAFE], tokensStored: true }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        let kill = try #require(Self.kills(outcome).first)
        #expect(kill.hasPrefix("killed before the storage write: secure-storage delete of 'session'"), "\(kill)")
        #expect(Self.discarded(outcome).count == 1)
    }

    @Test("a kill after the storage write lands on the sign-out's secure delete, which took effect")
    func landsAfterSecureDelete() throws {
        let yaml = Harness.caseFile("""
          - id: kill-after-sign-out-delete
            title: Killed right after the sign-out deleted the stored session
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: { at: afterStorageWrite }
              - signOut: {}
              - expect: { for: [PROCESS-DEATH-SAFE], tokensStored: false }
              - launch: {}
              - expect: { for: [PROCESS-DEATH-SAFE], state: signedOut, transitions: [restore-failed] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(Self.kills(outcome) == ["killed after the storage write: secure-storage delete of 'session' (e5) applied"])
        #expect(Self.discarded(outcome).isEmpty)
    }

    @Test("a kill point lands on a preferences write: discarded before it, applied after it", arguments: [
        (KillPoint.beforeStorageWrite, nil as String?), (.afterStorageWrite, "inbox"),
    ])
    func landsOnPreferencesWrite(point: KillPoint, stored: String?) throws {
        let driver = ClientDriver(launcher: PreferencesWritingClient.launcher, seed: 1)
        try driver.launch()
        driver.kill(at: point)
        try driver.command(.background)
        #expect(!driver.isRunning, "the kill did not land")
        #expect(driver.world.storage.preferences[PreferencesWritingClient.key] == stored)
        let killed = driver.trace.events.compactMap { event -> String? in
            if case .processKilled(_, let reason) = event.kind { return reason }
            return nil
        }
        #expect(killed.count == 1)
        #expect(killed.first?.contains("preferences set of '\(PreferencesWritingClient.key)'") == true, "\(killed)")
        #expect(driver.endStep() == nil, "a kill that landed is no longer armed")
    }

    @Test("a kill point stays armed through steps that do not drive the client and lands in the next one that does")
    func armedThroughSetupSteps() throws {
        let yaml = Harness.caseFile("""
          - id: kill-after-setup-steps
            title: Armed, then faults, holds and an expect before the request that refreshes
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: { at: beforeStorageWrite }
              - fault: { path: /resources/*, kind: expiredToken }
              - hold: { path: /me }
              - configure: { reuseInterval: 60 }
              - expect: { for: [PROCESS-DEATH-SAFE], tokensStored: true }
              - request: { resource: inbox }
              - expect: { for: [PROCESS-DEATH-SAFE], requests: [{ path: /auth/refresh, count: 1 }] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(Self.kills(outcome).count == 1)
        #expect(Self.kills(outcome).first?.hasPrefix("killed before the storage write: secure-storage set of 'session'") == true)
    }

    // MARK: Kill points that never land

    @Test("a kill point the next client step does not reach disarms: the case is inconclusive and charges nothing")
    func unfiredKillIsInconclusive() throws {
        let yaml = Harness.caseFile("""
          - id: kill-never-reached
            title: Armed before a request that writes nothing
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: { at: beforeStorageWrite }
              - request: { resource: inbox }
              - launch: {}
              - expect: { for: [PROCESS-DEATH-SAFE], state: signedOut }

        """)
        let (outcome, result) = try Harness.runOne(yaml)
        #expect(outcome.status == .inconclusive, "\(Harness.rendered(outcome))")
        #expect(outcome.reason == "kill point never reached (beforeStorageWrite, armed at step 3)")
        #expect(outcome.findings.isEmpty)
        #expect(Self.kills(outcome).isEmpty, "no kill landed, and the launch after it never ran")
        #expect(!outcome.trace.events.contains { $0.step > 3 }, "the case stops at the end of the step")
        let verdict = try #require(Harness.verdict("PROCESS-DEATH-SAFE", in: result))
        #expect(verdict.findings.isEmpty)
        #expect(verdict.status != .fail && verdict.status != .pass, "\(verdict.status)")
    }

    @Test("a kill point whose process ends another way (a reboot) never lands: the case is inconclusive")
    func rebootBeforeKillIsInconclusive() throws {
        let yaml = Harness.caseFile("""
          - id: reboot-before-kill
            title: Armed, then the device restarts
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: { at: afterStorageWrite }
              - reboot: {}
              - launch: {}

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .inconclusive)
        #expect(outcome.reason == "kill point never reached (afterStorageWrite, armed at step 3)")
        #expect(Self.kills(outcome) == ["the device restarted"])
    }

    // MARK: kill: {} with no client running

    @Test("kill: {} with no client running is a no-op noted in the trace, and disarms an armed kill point")
    func killNowWithoutClient() throws {
        let yaml = Harness.caseFile("""
          - id: kill-without-client
            title: Killed twice, with a kill point armed in between, then a refresh writes the new pair
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: {}
              - kill: {}
              - kill: { at: beforeStorageWrite }
              - kill: {}
              - launch: {}
              - fault: { path: /resources/*, kind: expiredToken }
              - request: { resource: inbox }
              - expect: { for: [PROCESS-DEATH-SAFE], state: authenticated, tokensStored: true, requests: [{ path: /auth/refresh, count: 1 }] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(Self.kills(outcome) == ["killed by the case"], "the disarmed kill point must not land on the refresh's write")
        let notes = Self.notes(outcome)
        #expect(notes.filter { $0 == "kill: no client is running; nothing to kill" }.count == 2, "\(notes)")
        #expect(notes.contains("kill point beforeStorageWrite armed at step 5 disarmed: replaced by this kill step"), "\(notes)")
    }
}

/// The fake session client, plus one preferences write: on `background` it records the last screen in
/// preferences, and answers the command once the write is acknowledged.
private final class PreferencesWritingClient: InProcessClient {
    static let key = "ui.lastScreen"
    static let launcher = InProcessLauncher(description: "fake client writing preferences") { PreferencesWritingClient() }

    private let inner = FakeSessionClient()
    private var waiting: [String: String] = [:]

    func start() -> [AdapterMessage] { inner.start() }

    func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        switch message {
        case .command(let command) where command.kind == .background:
            let effect = "pref-\(waiting.count + 1)"
            waiting[effect] = command.id
            return [.preferences(id: effect, operation: .set, key: Self.key, value: "inbox")]
        case .reply(let id, _):
            if let command = waiting.removeValue(forKey: id) { return [.result(CommandResult(id: command))] }
            return inner.handle(message)
        default:
            return inner.handle(message)
        }
    }
}
