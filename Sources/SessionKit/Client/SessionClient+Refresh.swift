/// The account's single refresh operation. Started by the first caller that needs it; every other caller
/// joins it. It sends the refresh token with a plain call (never through the 401 handling), writes the new
/// pair as one unit before resolving, and retries retryable failures with bounded backoff and jitter.
extension SessionClient {
    func runRefresh(_ operationID: UInt64) async {
        while true {
            let failure: FailureClass
            switch machine.refreshStep(operationID) {
            case .abandon:
                logger.log(.debug, "refresh.abandoned", ["operation": String(operationID)])
                return
            case .send(let refreshToken, let transition):
                if let transition { emit(transition) }
                logger.log(.info, "refresh.sent", ["operation": String(operationID)])
                switch await api.refresh(refreshToken) {
                case .granted(let grant):
                    let receivedAt = environment.clock.monotonicNow()
                    switch machine.refreshGranted(operationID, grant: grant, receivedAt: receivedAt, leeway: configuration.refreshLeeway) {
                    case .abandon:
                        logger.log(.notice, "refresh.stale-result-discarded", ["operation": String(operationID)])
                        return
                    case .persist(let session, let generation):
                        guard let persistFailure = await persistRefreshed(operationID, session, generation) else { return }
                        failure = persistFailure
                    }
                case .rejected(let rejection):
                    if let ended = machine.refreshRejected(operationID, failure: rejection) {
                        await finish(ended)
                    } else {
                        logger.log(.notice, "refresh.stale-result-discarded", ["operation": String(operationID)])
                    }
                    return
                case .failed(let refreshFailure):
                    failure = refreshFailure
                }
            case .persist(let session, let generation, let transition):
                if let transition { emit(transition) }
                guard let persistFailure = await persistRefreshed(operationID, session, generation) else { return }
                failure = persistFailure
            }
            guard let deferral = machine.refreshDeferred(operationID, failure: failure, policy: configuration.refreshBackoff) else { return }
            emit(deferral.transition)
            let error = SessionError(.refreshUnavailable, failureClass: failure, context: "refresh deferred; the session is kept")
            for waiter in deferral.waiters { waiter.resume(.failure(error)) }
            guard let failures = deferral.retryAfterFailures else {
                logger.log(.notice, "refresh.retries-exhausted", ["operation": String(operationID), "failureClass": failure.rawValue])
                return
            }
            await pause(.refresh(operationID), for: backoffDelay(configuration.refreshBackoff, failures: failures))
        }
    }

    /// Writes the new pair; only after the write do waiters get it. Returns the failure to defer on, or
    /// `nil` when the operation is over (resolved, or stale).
    private func persistRefreshed(_ operationID: UInt64, _ session: StoredSession, _ generation: SessionGeneration) async -> FailureClass? {
        switch await vault.commit(.setActive(session), ifGeneration: generation) {
        case .committed:
            guard let resolution = machine.refreshPersisted(operationID) else { return nil }
            emit(resolution.transition)
            for waiter in resolution.waiters { waiter.resume(.success(resolution.ticket)) }
            return nil
        case .stale:
            logger.log(.notice, "refresh.stale-result-discarded", ["operation": String(operationID)])
            return nil
        case .failed(let failure):
            logger.log(.warning, "refresh.persist-failed", ["operation": String(operationID), "failureClass": failure.rawValue])
            return failure
        }
    }
}
