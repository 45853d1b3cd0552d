import Foundation

/// The account's single refresh operation. Started by the first caller that needs it; every other caller
/// joins it. It sends the refresh token with a plain call (never through the 401 handling), writes the new
/// pair as one unit before resolving, and retries retryable failures with bounded backoff and jitter.
extension SessionClient {
    /// `startedBy`: why the refresh started (the reason of its `refresh-started`).
    /// `byLogin`: the login-per-waiter defect's own refresh, a login with the remembered password.
    func runRefresh(_ operationID: UInt64, startedBy reason: TransitionReason? = nil, byLogin: Bool = false) async {
        var refusedThroughHandler = false
        // The reply to an attempt that timed out on the client's deadline, when it came after all.
        var lateOutcome: AuthAPI.RefreshOutcome?
        while true {
            let failure: FailureClass
            switch machine.refreshStep(operationID) {
            case .abandon:
                logger.log(.debug, "refresh.abandoned", ["operation": String(operationID)])
                return
            case .send(let refreshToken, let transition):
                if let transition { emit(transition) }
                let sentFor = machine.activeSession()
                let outcome: AuthAPI.RefreshOutcome
                if let late = lateOutcome {
                    logger.log(.info, "refresh.late-reply", ["operation": String(operationID)])
                    outcome = late
                    lateOutcome = nil
                } else {
                    logger.log(.info, "refresh.sent", ["operation": String(operationID)])
                    // DEFECT refresh-through-401-handler: the refresh goes through the authenticated client, which
                    // adds the access token (and answers a refused refresh below by refreshing again).
                    let bearer = defects.contains(.refreshThrough401Handler) ? sentFor?.accessToken : nil
                    if byLogin, let remembered = rememberedSignIn {
                        // DEFECT login-per-waiter: credentials by a password grant of this request's own.
                        switch await api.login(email: remembered.email, password: remembered.password) {
                        case .granted(let grant): outcome = .granted(grant)
                        case .invalidCredentials: outcome = .rejected(.invalidGrant)
                        case .failed(let failure): outcome = .failed(failure)
                        }
                    } else {
                        outcome = await api.refresh(refreshToken, bearer: bearer)
                    }
                }
                var overdue: Task<AuthAPI.RefreshOutcome, Never>?
                switch outcome {
                case .granted(let grant):
                    // DEFECT token-in-log: the refresh response is logged as received, tokens and all.
                    if defects.contains(.tokenInLog) {
                        logger.log(.debug, "refresh.response", ["access_token": grant.accessToken.secretValue, "expires_in": String(grant.expiresIn)])
                    }
                    let receivedAt = tokenReceivedAt(grant)
                    switch machine.refreshGranted(operationID, grant: grant, receivedAt: receivedAt, leeway: configuration.refreshLeeway) {
                    case .abandon:
                        logger.log(.notice, "refresh.stale-result-discarded", ["operation": String(operationID)])
                        // DEFECT no-generation-check-on-refresh-result: the late result is stored anyway, for
                        // the session it was sent for, after that session ended.
                        if defects.contains(.noGenerationCheckOnRefreshResult), let sentFor {
                            let late = StoredSession(
                                sessionID: sentFor.sessionID, account: sentFor.account, accessToken: grant.accessToken,
                                refreshToken: grant.refreshToken ?? sentFor.refreshToken)
                            _ = await vault.commit(.setActive(late), ifGeneration: nil)
                        }
                        return
                    case .persist(let session, let generation):
                        guard let persistFailure = await persistRefreshed(operationID, session, generation, startedBy: reason) else { return }
                        failure = persistFailure
                    }
                case .rejected(let rejection):
                    if defects.contains(.refreshThrough401Handler), !refusedThroughHandler {
                        // DEFECT refresh-through-401-handler: the refused refresh is a 401 to the handler it went
                        // through, which refreshes again (once, as it retries any request once).
                        refusedThroughHandler = true
                        continue
                    }
                    if let ended = machine.refreshRejected(operationID, failure: rejection) {
                        await finish(ended)
                    } else {
                        logger.log(.notice, "refresh.stale-result-discarded", ["operation": String(operationID)])
                    }
                    return
                case .failed(let refreshFailure):
                    // DEFECT sign-out-on-any-refresh-failure: a timeout, 5xx or offline refresh is treated as a
                    // rejection, and the session is cleared.
                    if defects.contains(.signOutOnAnyRefreshFailure), let ended = machine.refreshRejected(operationID, failure: refreshFailure) {
                        await finish(ended)
                        return
                    }
                    failure = refreshFailure
                case .timedOut(let late):
                    failure = .timeout
                    overdue = late
                }
                if let overdue {
                    // The deadline passed: the waiters get the timeout now (deferred, session kept). The token is
                    // not sent again while its reply may still come: the server may have rotated it.
                    guard let deferral = machine.refreshDeferred(operationID, failure: failure, policy: configuration.refreshBackoff) else { return }
                    emit(deferral.transition)
                    let error = SessionError(.refreshUnavailable, failureClass: failure, context: "refresh deferred; the session is kept")
                    for waiter in deferral.waiters { waiter.resume(.failure(error)) }
                    machine.refreshAwaitingLateReply(operationID, true)
                    lateOutcome = await overdue.value
                    machine.refreshAwaitingLateReply(operationID, false)
                    continue
                }
            case .persist(let session, let generation, let transition):
                if let transition { emit(transition) }
                guard let persistFailure = await persistRefreshed(operationID, session, generation, startedBy: reason) else { return }
                failure = persistFailure
            }
            guard let deferral = machine.refreshDeferred(operationID, failure: failure, policy: configuration.refreshBackoff) else { return }
            emit(deferral.transition)
            let error = SessionError(.refreshUnavailable, failureClass: failure, context: "refresh deferred; the session is kept")
            for waiter in deferral.waiters { waiter.resume(.failure(error)) }
            // DEFECT failed-refresh-sticks: the failure is kept as the refresh's result, and every later request gets it.
            if defects.contains(.failedRefreshSticks) { stickyRefreshFailure = error }
            // DEFECT no-backoff-after-retryable-failure: the deferred refresh is dropped, so the next 401 refreshes at once.
            if defects.contains(.noBackoffAfterRetryableFailure), [.timeout, .offline, .connectionLost, .serverError, .rateLimited].contains(failure) {
                machine.dropBackoff(operationID)
                return
            }
            guard let failures = deferral.retryAfterFailures else {
                logger.log(.notice, "refresh.retries-exhausted", ["operation": String(operationID), "failureClass": failure.rawValue])
                return
            }
            // DEFECT fixed-interval-backoff: every retry waits the same 6 s, however long the outage lasts.
            let delay = defects.contains(.fixedIntervalBackoff) ? .seconds(6) : backoffDelay(configuration.refreshBackoff, failures: failures)
            await pause(.refresh(operationID), for: delay)
        }
    }

    /// Where the expiry-refresh-staged-pair-lost defect stages a refreshed pair.
    private var stagedPairKey: String { configuration.credentialStorageKey + ".staged" }

    /// The expiry-refresh-staged-pair-lost defect at launch: a staged pair is deleted unread.
    func dropStagedPair() async {
        // `try?` flattens: nil when the item is absent or unreadable.
        guard (try? await environment.secureStorage.read(stagedPairKey)) != nil else { return }
        try? await environment.secureStorage.delete(stagedPairKey)
    }

    /// Writes the new pair; only after the write do waiters get it. Returns the failure to defer on, or
    /// `nil` when the operation is over (resolved, or stale).
    private func persistRefreshed(_ operationID: UInt64, _ session: StoredSession, _ generation: SessionGeneration,
                                  startedBy reason: TransitionReason?) async -> FailureClass? {
        if defects.contains(.persistAfterResolving) {
            // DEFECT persist-after-resolving: the shared refresh is resolved first, so the waiters retry with
            // the new access token while the new pair is still being written.
            guard let resolution = machine.refreshPersisted(operationID) else { return nil }
            emit(resolution.transition)
            for waiter in resolution.waiters { waiter.resume(.success(resolution.ticket)) }
            _ = await vault.commit(.setActive(session), ifGeneration: generation)
            return nil
        }
        // DEFECT expiry-refresh-staged-pair-lost: a refresh the clock started stages the new pair under a second
        // key first; no launch reads that key, so a kill before the swap below restores the rotated pair.
        let stagedKey = stagedPairKey
        let staged = defects.contains(.expiryRefreshStagedPairLost) && reason == .accessTokenExpiring
        if staged {
            do {
                try await environment.secureStorage.write((try? JSONEncoder().encode(session)) ?? Data(), for: stagedKey,
                                                          accessibility: configuration.credentialAccessibility)
            } catch {
                return FailureClass(error)
            }
        }
        switch await vault.commit(.setActive(session), ifGeneration: generation) {
        case .committed:
            if staged { try? await environment.secureStorage.delete(stagedKey) }
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
