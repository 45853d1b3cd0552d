import Foundation

/// The reference session client: launch and restore, sign-in, account switch, sign-out, authenticated
/// requests with a single shared refresh, background refresh, and remote revocation.
///
/// Every outward effect goes through the injected `SessionEnvironment`. All session state lives in the
/// private `State` of `SessionStateMachine`; this actor asks the machine what to do and performs the
/// effects. Procedures live in extensions: `+Restore`, `+Requests`, `+InFlight`, `+Refresh`, `+SignIn`, `+SignOut`,
/// `+Background`.
public actor SessionClient {
    /// The configuration the client was created with.
    public nonisolated let configuration: SessionConfiguration
    let environment: SessionEnvironment
    let logger: SessionLogger
    let api: AuthAPI
    let vault: CredentialVault
    let cache: AccountContentCache
    let revocations: RevocationWorker
    let validator: SignInInputValidator
    var machine: SessionStateMachine
    private var nextWaiterID: UInt64 = 1
    /// Requests with an HTTP exchange in flight (`+InFlight`).
    var inFlight: [UInt64: InFlightRequest] = [:]
    private var sleepers: [Pause: Task<Void, any Error>] = [:]
    /// Transitions waiting to be told, in the order the machine took them (`+Emission`).
    var pendingEmissions: [PendingEmission] = []
    /// The failed-refresh-sticks defect's remembered failure; always nil in the reference.
    var stickyRefreshFailure: SessionError?
    /// The login-per-waiter defect's password, kept in memory since the last sign-in.
    var rememberedSignIn: (email: String, password: String)?

    /// A backoff wait that a signal (unlock, network back, foreground) may cut short.
    enum Pause: Hashable {
        case restore
        case refresh(UInt64)
    }

    /// Creates a client in `restoring`. Nothing happens until `launch()`.
    public init(configuration: SessionConfiguration = SessionConfiguration(), environment: SessionEnvironment) {
        let logger = SessionLogger(sink: environment.log, clock: environment.clock)
        let generations = GenerationCounter()
        let defects = configuration.defects
        let deadline = configuration.requestDeadline.map {
            ExchangeDeadline(duration: $0, clock: environment.clock, taskExecutor: environment.taskExecutor)
        }
        let api = AuthAPI(transport: environment.transport, paths: configuration.paths, dialect: configuration.dialect,
                          defects: defects, deadline: deadline)
        // DEFECT when-unlocked-tokens: the tokens get the Keychain default class, which a background
        // refresh on a locked device can neither read nor write.
        let accessibility = defects.contains(.whenUnlockedTokens) ? .whenUnlocked : configuration.credentialAccessibility
        let cache = AccountContentCache(
            preferences: environment.preferences, generations: generations, logger: logger,
            keyedByPathOnly: defects.contains(.cacheKeyedByPath)
        )
        // The ended sessions' records are gone; the marker goes too unless a cache clear is still owed.
        let vault = CredentialVault(
            storage: environment.secureStorage,
            key: configuration.credentialStorageKey,
            accessibility: accessibility,
            generations: generations,
            logger: logger,
            endsFinished: { [preferences = environment.preferences] in
                if await cache.clearOwed() { await SessionEndMarker.clear(preferences) }
            },
            forgetsFailedEnds: defects.contains(.failedEndForgotten),
            refreshTokenCopy: defects.contains(.refreshTokenCopiedToPreferences) ? environment.preferences : nil,
            accessTokenCopy: defects.contains(.restorePrefetchesWithMirroredToken) ? environment.preferences : nil
        )
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
        self.api = api
        self.vault = vault
        self.cache = cache
        self.revocations = RevocationWorker(
            api: api, vault: vault, clock: environment.clock, random: environment.random,
            policy: configuration.revocationBackoff, logger: logger, taskExecutor: environment.taskExecutor,
            dropsUnreachable: defects.contains(.forgetOfflineRevocation)
        )
        self.validator = SignInInputValidator(minimumPasswordLength: configuration.minimumPasswordLength)
        self.machine = SessionStateMachine(generations: generations, defects: defects)
    }

    /// The known-bad variant's defects (docs/known-bad.md); empty for the reference.
    var defects: Set<SessionKitDefect> { configuration.defects }

    /// Now, on the clock token expiry is measured on: the monotonic clock, which no change of the device's time
    /// moves, so clock skew can cause neither a refresh storm nor a token believed valid that the server refuses.
    func expiryClockNow() -> MonotonicInstant {
        // DEFECT proactive-refresh-storm-after-clock-jump, dead-session-after-clock-jump-back: expiry is measured on
        // the device's wall clock, which the user or the network may set to anything.
        guard defects.contains(.proactiveRefreshStormAfterClockJump) || defects.contains(.deadSessionAfterClockJumpBack) else {
            return environment.clock.monotonicNow()
        }
        return Self.expiryInstant(environment.clock.wallClockNow())
    }

    /// When a grant's access token started to live, on the expiry clock: when it arrived.
    func tokenReceivedAt(_ grant: TokenGrant) -> MonotonicInstant {
        // DEFECT proactive-refresh-storm-after-clock-jump: the token started to live when the server issued it (its
        // response's `Date`), a time on the server's clock that is then read against the device's.
        if defects.contains(.proactiveRefreshStormAfterClockJump), let issued = grant.serverDate { return Self.expiryInstant(issued) }
        return expiryClockNow()
    }

    private static func expiryInstant(_ date: Date) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: .milliseconds(Int64((date.timeIntervalSince1970 * 1000).rounded())))
    }

    /// The current phase, account and generation.
    public var snapshot: SessionSnapshot { machine.snapshot }

    /// Process start: reads secure storage, establishes the account, validates or refreshes with the
    /// server, and only then enters `authenticated` (or `signedOut`). Returns once restoring has ended;
    /// while storage is locked or the server unreachable it keeps restoring and retrying. Calling it
    /// again just waits for the same restore.
    @discardableResult
    public func launch() async -> SessionSnapshot {
        switch machine.launch() {
        case .startRestore(let generation):
            logger.log(.info, "launch.restoring", ["generation": generation.description])
            Task(executorPreference: environment.taskExecutor) { await self.runRestore(generation: generation) }
        case .awaitSettle:
            break
        }
        return await awaitSettled()
    }

    // MARK: - Signals from the app and the OS

    /// Protected data became available: retries a restore or refresh deferred by locked storage.
    public func deviceDidUnlock() async {
        logger.log(.info, "signal.device-unlocked")
        await wakeDeferredWork()
    }

    /// The network is reachable again: retries deferred refresh, restore and revocations now.
    public func networkDidBecomeAvailable() async {
        logger.log(.info, "signal.network-available")
        await wakeDeferredWork()
    }

    /// The app returns to the foreground: retries deferred work now.
    public func appWillEnterForeground() async {
        logger.log(.info, "signal.foreground")
        await wakeDeferredWork()
    }

    private func wakeDeferredWork() async {
        wake(.restore)
        if let operation = machine.backingOffRefresh() { wake(.refresh(operation)) }
        await revocations.kick()
    }

    // MARK: - Plumbing shared by the procedures

    func emit(_ transition: SessionTransition) {
        guard pendingEmissions.isEmpty else {
            pendingEmissions.append(.ready([transition]))
            return
        }
        logger.transition(transition)
        environment.events.record(transition)
    }

    /// Suspends the caller until the machine admits it (ticket or error). A cancelled caller leaves the
    /// queue with `cancelled`; the shared restore or refresh it waited for goes on.
    func awaitAdmission(_ enqueue: (inout SessionStateMachine, Waiter<Admission>) -> AdmissionAction) async -> Admission {
        let id = makeWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Admission, Never>) in
                perform(enqueue(&machine, Waiter(id: id, continuation: continuation)))
            }
        } onCancel: {
            Task(executorPreference: environment.taskExecutor) { await self.cancelAdmissionWaiter(id) }
        }
    }

    func perform(_ action: AdmissionAction) {
        switch action {
        case .resume(let waiter, let admission):
            waiter.resume(admission)
        case .queued:
            logger.log(.debug, "request.waiting", ["phase": machine.snapshot.phase.rawValue])
        case .queuedStartingRefresh(let start):
            if let transition = start.transition { emit(transition) }
            logger.log(.debug, "request.waiting", ["phase": machine.snapshot.phase.rawValue])
            let reason = start.transition?.reason
            Task(executorPreference: environment.taskExecutor) { await self.runRefresh(start.operationID, startedBy: reason, byLogin: start.byLogin) }
        }
    }

    private func cancelAdmissionWaiter(_ id: UInt64) {
        guard let waiter = machine.cancelAdmissionWaiter(id: id) else { return }
        logger.log(.debug, "request.cancelled-while-waiting")
        waiter.resume(.failure(SessionError(.cancelled, failureClass: .cancelled, context: "the caller was cancelled")))
    }

    private func awaitSettled() async -> SessionSnapshot {
        let id = makeWaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SessionSnapshot, Never>) in
                if let now = machine.addSettleWaiter(Waiter(id: id, continuation: continuation)) {
                    now.resume(machine.snapshot)
                }
            }
        } onCancel: {
            Task(executorPreference: environment.taskExecutor) { await self.cancelSettleWaiter(id) }
        }
    }

    private func cancelSettleWaiter(_ id: UInt64) {
        machine.cancelSettleWaiter(id: id)?.resume(machine.snapshot)
    }

    func makeWaiterID() -> UInt64 {
        defer { nextWaiterID += 1 }
        return nextWaiterID
    }

    /// Waits `delay` on the injected clock; `wake` ends the wait early.
    func pause(_ pause: Pause, for delay: Duration) async {
        let clock = environment.clock
        let sleeper = Task(executorPreference: environment.taskExecutor) { try await clock.sleep(for: delay) }
        sleepers[pause] = sleeper
        _ = await sleeper.result
        if sleepers[pause] == sleeper { sleepers[pause] = nil }
    }

    func wake(_ pause: Pause) {
        sleepers[pause]?.cancel()
    }

    /// Stops every backoff wait: the work behind them is stale once the session ended.
    func wakeAll() {
        for sleeper in sleepers.values { sleeper.cancel() }
    }

    func backoffDelay(_ policy: BackoffPolicy, failures: Int) -> Duration {
        policy.delay(afterFailure: failures, unitRandom: environment.random.unitInterval())
    }

    /// A fresh identifier for one sign-in, from the injected randomness.
    func makeSessionID() -> String {
        let high = environment.random.next(), low = environment.random.next()
        return "s-" + String(high, radix: 16) + String(low, radix: 16)
    }
}
