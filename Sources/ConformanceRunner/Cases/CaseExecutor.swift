import ConformanceProtocol
import SpecModel
import SimulatedWorld

/// Plays one acceptance case against a fresh client and world, then runs every oracle over its trace.
struct CaseExecutor {
    let acceptanceCase: AcceptanceCase
    let machine: StateMachine
    let launcher: any AdapterLauncher
    let capabilities: [String]
    let offlineResources: [String]
    let seed: UInt64
    var world: WorldProfile = .jsonV1
    /// What the adapter's `hello` declared starts its refreshes; nil when it did not say.
    var refreshTriggers: Set<RefreshTrigger>? = nil
    /// Where the client instances come from (see `ClientRestarts`).
    var restarts = ClientRestarts.processDeaths

    func run() -> CaseOutcome {
        let caseSeed = SeededRandom.derive(seed, acceptanceCase.id)
        let missing = acceptanceCase.capabilities.map(\.value).filter { !capabilities.contains($0) }
        let driver = ClientDriver(launcher: launcher, seed: caseSeed, profile: world, restarts: restarts)
        if !missing.isEmpty {
            return outcome(.skipped, driver: driver, findings: [], seed: caseSeed,
                           reason: "the adapter does not declare \(missing.joined(separator: ", "))")
        }
        if let reason = skippedTrigger() {
            return outcome(.skipped, driver: driver, findings: [], seed: caseSeed, reason: reason)
        }
        var findings: [Finding] = []
        let heldClock = acceptanceCase.timeouts ? HeldClockRule.Analysis()
            : HeldClockRule.analyze(acceptanceCase.steps, trigger: acceptanceCase.trigger)
        // Consecutive checks share one window: what happened since the previous group of checks.
        var since = 0
        var groupEnd: Int?
        var verified: Set<String> = []
        // The rest of the case would check nothing: stop. What earlier steps found stands, but only the
        // requirements they verified count as covered by this case.
        func stop(_ reason: String, _ unmet: UnmetPrecondition) -> CaseOutcome {
            driver.finish()
            let index = TraceIndex(driver.trace, profile: driver.world.profile)
            if findings.isEmpty, let skip = refreshedAhead(index, heldClock) ?? undiscoveredTrigger(index) {
                var skipped = outcome(.skipped, driver: driver, findings: [], seed: caseSeed, reason: skip.reason + "; " + reason)
                skipped.unmet = skip.unmet
                return skipped
            }
            var stopped = outcome(findings.isEmpty ? .inconclusive : .fail, driver: driver, findings: findings, seed: caseSeed,
                                  reason: reason, covered: findings.isEmpty ? nil : verified)
            if findings.isEmpty {
                stopped.unmet = unmet
                stopped.wouldHaveChecked = remainingChecks(after: driver.step)
            } else {
                stopped.reached = SituationDetectors.reached(index, trace: driver.trace)
            }
            return stopped
        }
        do {
            for (index, step) in acceptanceCase.steps.enumerated() {
                driver.beginStep(index, kind: step.kind)
                if let expectation = step.action.expectation {
                    let check = ExpectationCheck(expectation: expectation, driver: driver, machine: machine, since: since, stepIndex: index)
                    groupEnd = driver.trace.events.count
                    if case .require = step.action, let unmet = check.problems().first {
                        return stop("precondition of step \(index + 1) (\(step.location.file):\(step.location.line)) did not hold: \(unmet.message)",
                                    unmet.unmet)
                    }
                    if case .expect(let expectation) = step.action {
                        verified.formUnion(expectation.verifies.map(\.value))
                    }
                    findings += check.findings()
                    continue
                }
                if let end = groupEnd {
                    since = end
                    groupEnd = nil
                }
                if case .release(let path) = step.action, let abandoned = abandonedOnDeadline(path, driver: driver, before: index) {
                    return stop(abandoned.reason, abandoned.unmet)
                }
                if heldClock.approaches.contains(index) { try driver.approachExpiry() }
                try perform(step.action, driver: driver)
                if let unreached = driver.endStep() {
                    return stop(unreached.reason, UnmetPrecondition(kind: .killPoint, step: index + 1, subject: unreached.point))
                }
            }
        } catch {
            driver.finish()
            return outcome(.error, driver: driver, findings: findings, seed: caseSeed, reason: error.description,
                           stderrTail: error.stderrTail.isEmpty ? driver.tail() : error.stderrTail)
        }
        driver.finish()
        let context = OracleContext(index: TraceIndex(driver.trace, profile: driver.world.profile, machine: machine), trace: driver.trace, world: driver.world,
                                    machine: machine, capabilities: capabilities, offlineResources: offlineResources,
                                    capturedLog: driver.capturedLog)
        // A variant that ran to the end without its trigger ever starting a refresh, for an adapter that did not
        // declare its triggers, showed a trigger the client does not use: skipped, as when it stops early, so an
        // expiry-only client is not charged for what a 401-only scenario expects of a 401 refresh.
        if let skip = refreshedAhead(context.index, heldClock) ?? undiscoveredTrigger(context.index) {
            var skipped = outcome(.skipped, driver: driver, findings: [], seed: caseSeed, reason: skip.reason + "; the case ran to its end")
            skipped.unmet = skip.unmet
            return skipped
        }
        for oracle in Oracles.all { findings += oracle.check(context) }
        var finished = outcome(findings.isEmpty ? .pass : .fail, driver: driver, findings: findings, seed: caseSeed)
        finished.reached = SituationDetectors.reached(context.index, trace: driver.trace)
        return finished
    }

    /// What the `expect` steps after `step` would have checked, for the report of an inconclusive case:
    /// `step 9 (Specs/cases/refresh.yaml:40): REFRESH-SINGLE-FLIGHT: requests, results`.
    private func remainingChecks(after step: Int) -> [String] {
        acceptanceCase.steps.enumerated().dropFirst(step + 1).compactMap { index, caseStep in
            guard case .expect(let expectation) = caseStep.action else { return nil }
            let keys = caseStep.arguments.mapping?.map(\.key).filter { !["for", "under"].contains($0) } ?? []
            return "step \(index + 1) (\(caseStep.location.file):\(caseStep.location.line)): "
                + expectation.verifies.map(\.value).joined(separator: ", ") + ": " + keys.joined(separator: ", ")
        }
    }

    private func perform(_ action: StepAction, driver: ClientDriver) throws(AdapterFailure) {
        switch action {
        case .launch:
            try driver.launch()
        case .kill(let point):
            driver.kill(at: point)
        case .signIn(let credentials):
            let (email, password) = resolve(credentials)
            try driver.command(.signIn, email: email, password: password)
        case .switchAccount(let credentials):
            let (email, password) = resolve(credentials)
            try driver.command(.switchAccount, email: email, password: password)
        case .signOut:
            try driver.command(.signOut)
        case .request(let resource, let count):
            try driver.command(.request, resource: resource, count: count)
        case .system(let event):
            switch event {
            case "offline": driver.setOnline(false)
            case "online": driver.setOnline(true)
            case "lock": driver.setLocked(true)
            case "unlock": driver.setLocked(false)
            default: break
            }
            if driver.isRunning, let kind = CommandKind(rawValue: event) { try driver.command(kind) }
        case .advance(let seconds):
            try driver.advance(by: seconds)
        case .skewClock(let seconds):
            try driver.skewClock(seconds)
        case .refreshDue:
            // Lint requires triggers wherever refreshDue is written; an unexpanded case plays its first trigger.
            try driver.makeRefreshDue(by: acceptanceCase.trigger ?? acceptanceCase.triggers.first?.value ?? .expiry,
                                      heldLimit: !acceptanceCase.timeouts)
        case .fault(let path, let kind, let times):
            driver.addFault(path: path, kind: kind, times: times)
        case .storageFault(let kind, let times):
            driver.addStorageFault(kind, times: times)
        case .hold(let path):
            driver.hold(path)
        case .release(let path):
            try driver.release(path)
        case .configure(let settings):
            driver.configure(settings)
        case .revoke(let account):
            driver.revoke(account: account)
        case .reboot:
            driver.reboot()
        case .barrier:
            if driver.isRunning { try driver.settle() }
        case .schedule(let settings):
            driver.schedule = BarrierSchedule(settings)
        case .expect, .require:
            break
        }
    }

    /// A `release` at step `index` whose held request the client abandoned on its own deadline, in a case that
    /// still checks something after it: the case cannot show what it is about, so it stops inconclusive, never
    /// failing a client for a deadline 001 allows ("Timeouts, 5xx and offline are retryable"). A case marked
    /// `timeouts` is about that deadline and goes on.
    private func abandonedOnDeadline(_ path: String, driver: ClientDriver, before index: Int) -> (reason: String, unmet: UnmetPrecondition)? {
        guard !acceptanceCase.timeouts, let abandoned = driver.takeAbandonedOnDeadline(matching: path).first,
              !remainingChecks(after: index).isEmpty
        else { return nil }
        let request = "\(abandoned.request.method) \(abandoned.request.path)"
        let reason = "the client gave up on \(request) on its own deadline while the world held it (the clock moved at step "
            + "\(abandoned.step + 1)); the case needed its answer at step \(index + 1) (release)"
        return (reason, UnmetPrecondition(kind: .abandoned, step: index + 1, subject: abandoned.request.method,
                                          path: abandoned.request.path))
    }

    /// An `expiry` or `background` variant whose clock was moved close to expiry before a request to be held
    /// (`HeldClockRule.approaches`), and whose client refreshed ahead of expiry before the `refreshDue`: the
    /// request went out with the new token, and no access token can expire under a held request within a
    /// client's request deadline. The variant shows nothing; the `unauthorized` one tests the behaviour.
    private func refreshedAhead(_ index: TraceIndex, _ heldClock: HeldClockRule.Analysis) -> (reason: String, unmet: UnmetPrecondition)? {
        guard let trigger = acceptanceCase.trigger, let approach = heldClock.approaches.first,
              let due = acceptanceCase.steps.firstIndex(where: \.isRefreshDue),
              let refresh = index.exchanges.first(where: { $0.isRefresh && $0.step >= approach && $0.step < due })
        else { return nil }
        let reason = VerdictRule.triggerNotUsed + "the client refreshed ahead of expiry (step \(refresh.step + 1)) before its refreshDue "
            + "(step \(due + 1)), so no access token could expire under a held request within a client's request deadline "
            + "(docs/spec-format.md#held-requests-and-the-clock)"
        return (reason, UnmetPrecondition(kind: .refreshTrigger, step: due + 1, subject: trigger.rawValue,
                                          endpoint: LogicalEndpoint.refresh.rawValue, observed: "ahead"))
    }

    /// Why a trigger variant is not played for this client: its trigger needs a capability the adapter did not
    /// declare, or the adapter declared refresh triggers that do not include it.
    private func skippedTrigger() -> String? {
        guard let trigger = acceptanceCase.trigger else { return nil }
        if trigger == .background, !capabilities.contains("background-refresh") {
            return "the background variant needs background-refresh, which the adapter does not declare"
        }
        if let declared = refreshTriggers, !declared.contains(trigger) {
            let names = RefreshTrigger.allCases.filter(declared.contains).map(\.rawValue)
            return VerdictRule.triggerNotUsed + "the adapter declares refreshTriggers [\(names.joined(separator: ", "))], not \(trigger.rawValue)"
        }
        return nil
    }

    /// For an adapter that did not declare its refresh triggers: a variant that stopped with no refresh sent
    /// since its first `refreshDue` found a trigger the client does not use. It is skipped, not inconclusive:
    /// the other variants test the behaviour, and a requirement whose evidence no variant reached stays untested.
    private func undiscoveredTrigger(_ index: TraceIndex) -> (reason: String, unmet: UnmetPrecondition)? {
        guard let trigger = acceptanceCase.trigger, refreshTriggers == nil,
              let due = acceptanceCase.steps.firstIndex(where: \.isRefreshDue)
        else { return nil }
        let refreshed = index.exchanges.contains { $0.isRefresh && $0.step >= due }
        guard !refreshed else { return nil }
        let reason = VerdictRule.triggerNotUsed + "the client did not refresh on \(trigger.describedAsCause) (refreshDue, step \(due + 1)): "
            + "not one of its refresh triggers"
        return (reason, UnmetPrecondition(kind: .refreshTrigger, step: due + 1, subject: trigger.rawValue,
                                          endpoint: LogicalEndpoint.refresh.rawValue, observed: "0"))
    }

    private func resolve(_ credentials: Credentials) -> (String, String) {
        switch credentials {
        case .account(let name):
            let account = WorldAccount.named(name)!
            return (account.email, account.password)
        case .raw(let email, let password):
            return (email, password)
        }
    }

    /// `covered`: when the case stopped early, the requirements it still verified (the others are not covered).
    private func outcome(_ status: CaseStatus, driver: ClientDriver, findings: [Finding], seed: UInt64,
                         reason: String? = nil, stderrTail: String? = nil, covered: Set<String>? = nil) -> CaseOutcome {
        let requirements = acceptanceCase.requirements.map(\.value).filter { covered?.contains($0) ?? true }
        var made = CaseOutcome(caseID: acceptanceCase.id, title: acceptanceCase.title, file: acceptanceCase.file,
                    requirements: requirements, status: status, findings: findings,
                    reason: reason, stderrTail: stderrTail.map { driver.world.vault.redact($0) }, trace: driver.trace,
                    vault: driver.world.vault, seed: seed)
        made.trigger = acceptanceCase.trigger
        return made
    }
}
