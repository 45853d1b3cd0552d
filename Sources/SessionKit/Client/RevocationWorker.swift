/// Revokes the refresh tokens of ended sessions. The queue lives in the session record in secure storage,
/// so it survives process death; the worker drains it on launch, on signals and after each sign-out, and
/// backs off (bounded) while the server is unreachable.
actor RevocationWorker {
    private enum State {
        case idle
        /// Draining; `rerun` when a kick arrived meanwhile.
        case running(rerun: Bool)
        case backingOff(sleeper: Task<Void, any Error>)
    }

    private var state: State = .idle
    private let api: AuthAPI
    private let vault: CredentialVault
    private let clock: any SessionClock
    private let random: any RandomSource
    private let policy: BackoffPolicy
    private let logger: SessionLogger
    private let taskExecutor: (any TaskExecutor)?
    /// The forget-offline-revocation defect (docs/known-bad.md); false for the reference.
    private let dropsUnreachable: Bool

    init(
        api: AuthAPI, vault: CredentialVault, clock: any SessionClock, random: any RandomSource, policy: BackoffPolicy,
        logger: SessionLogger, taskExecutor: (any TaskExecutor)?, dropsUnreachable: Bool = false
    ) {
        self.dropsUnreachable = dropsUnreachable
        self.api = api
        self.vault = vault
        self.clock = clock
        self.random = random
        self.policy = policy
        self.logger = logger
        self.taskExecutor = taskExecutor
    }

    /// Drains the queue now (or right after the current pass).
    func kick() {
        switch state {
        case .idle:
            state = .running(rerun: false)
            Task(executorPreference: taskExecutor) { await self.drain() }
        case .running:
            state = .running(rerun: true)
        case .backingOff(let sleeper):
            sleeper.cancel()
        }
    }

    private func drain() async {
        var failures = 0
        while true {
            if let failure = await revokeAll() {
                if case .running(rerun: true) = state {
                    // A kick (network back, unlock) arrived during the failed pass: try again now.
                    state = .running(rerun: false)
                    continue
                }
                failures += 1
                logger.log(.notice, "revocation.deferred", ["failureClass": failure.rawValue, "attempt": String(failures)])
                guard policy.allowsRetry(after: failures) else {
                    logger.log(.notice, "revocation.retries-exhausted")
                    state = .idle
                    return
                }
                let delay = policy.delay(afterFailure: failures, unitRandom: random.unitInterval())
                let clock = clock
                let sleeper = Task(executorPreference: taskExecutor) { try await clock.sleep(for: delay) }
                state = .backingOff(sleeper: sleeper)
                _ = await sleeper.result
                state = .running(rerun: false)
                continue
            }
            switch state {
            case .running(rerun: true):
                state = .running(rerun: false)
            case .idle, .running, .backingOff:
                state = .idle
                return
            }
        }
    }

    /// Revokes every queued token; returns the failure that stopped it, if any.
    private func revokeAll() async -> FailureClass? {
        let pending: [PendingRevocation]
        do {
            pending = try await vault.load().pendingRevocations
        } catch {
            return FailureClass(error)
        }
        for item in pending {
            switch await api.revoke(item.refreshToken) {
            case .revoked:
                logger.log(.info, "revocation.succeeded", ["account": item.account.rawValue])
            case .refused(let status):
                logger.log(.notice, "revocation.refused", ["account": item.account.rawValue, "status": String(status)])
            case .retryable(let failure):
                // DEFECT forget-offline-revocation: a revocation that cannot reach the server is given up, not
                // kept for a later retry; the refresh token stays valid on the server.
                guard dropsUnreachable else { return failure }
                logger.log(.notice, "revocation.dropped", ["account": item.account.rawValue, "failureClass": failure.rawValue])
            }
            if case .failed(let failure) = await vault.commit(.removeRevocation(id: item.id), ifGeneration: nil) {
                return failure
            }
        }
        return nil
    }
}
