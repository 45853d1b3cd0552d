/// Launch: `restoring` until storage is read, the account established, and the server has validated the
/// session (or the refresh token was exchanged). A token in storage alone never means `authenticated`.
extension SessionClient {
    func runRestore(generation: SessionGeneration) async {
        // DEFECT launch-trusts-session-hint: no flag in preferences, no session: secure storage is never read.
        if defects.contains(.launchTrustsSessionHint), (try? await environment.preferences.value(for: Self.sessionHintKey)) == nil {
            if let ended = machine.restoreFailed(reason: .noStoredSession, failure: nil, revoke: false, generation: generation) {
                await finish(ended)
            }
            return
        }
        // DEFECT restore-prefetches-with-mirrored-token: the launch prefetches the widget's news with the access token
        // mirrored in preferences before it reads secure storage (the answer is never shown).
        if defects.contains(.restorePrefetchesWithMirroredToken),
           let mirrored = try? await environment.preferences.value(for: CredentialVault.accessTokenCopyKey) {
            _ = await api.resource("news", AccessToken(String(decoding: mirrored, as: UTF8.self)))
        }
        guard let read = await readRecord(generation) else { return }
        // DEFECT expiry-refresh-staged-pair-lost: a pair a dead process staged is dropped as unfinished work, never
        // swapped into the record.
        if defects.contains(.expiryRefreshStagedPairLost) { await dropStagedPair() }
        let record = await finishInterruptedEnd(read)
        await revocations.kick()
        guard let stored = record.active else {
            if let ended = machine.restoreFailed(reason: .noStoredSession, failure: nil, revoke: false, generation: generation) {
                await finish(ended)
            }
            return
        }
        machine.restoreFound(stored, generation: generation)
        logger.log(.info, "restore.account-established", ["account": stored.account.rawValue])
        if defects.contains(.trustStoredToken) {
            // DEFECT trust-stored-token: a token in storage is taken as a session (isAuthenticated = token != nil);
            // the server is never asked.
            let credentials = Credentials(accessToken: stored.accessToken, refreshToken: stored.refreshToken, version: 1)
            if let validated = machine.restoreValidated(stored, credentials: credentials, generation: generation) { complete(validated) }
            return
        }
        await validate(stored, generation: generation)
    }

    /// Where the launch-trusts-session-hint defect keeps its flag.
    static let sessionHintKey = "auth.has-session"

    /// Reads the record, retrying with backoff while storage is locked: a locked device is not a sign-out.
    private func readRecord(_ generation: SessionGeneration) async -> SessionRecord? {
        var failures = 0
        while machine.isRestoring(generation) {
            do {
                let record = try await vault.load()
                // DEFECT locked-read-wipes-session: storage that was locked is distrusted once it opens: the
                // stored session is wiped and launch ends signed out.
                if failures > 0, defects.contains(.lockedReadWipesSession), let stored = record.active {
                    _ = await vault.commit(.endSession(sessionID: stored.sessionID, account: stored.account, revoke: nil), ifGeneration: nil)
                    return SessionRecord()
                }
                return record
            } catch {
                // DEFECT sign-out-on-locked-storage: a read that fails (the device is locked) is taken as "no
                // token", so launch ends signed out.
                if defects.contains(.signOutOnLockedStorage) { return SessionRecord() }
                failures += 1
                let failure = FailureClass(error)
                machine.restoreStalled(failure, generation: generation)
                logger.log(.notice, "restore.deferred", ["failureClass": failure.rawValue, "attempt": String(failures)])
                await pause(.restore, for: backoffDelay(configuration.restoreBackoff, failures: failures))
            }
        }
        return nil
    }

    /// Validates with `GET /me`; on 401 exchanges the refresh token (persisting the new pair before using
    /// it); retries retryable failures; ends signed out only on an explicit rejection.
    private func validate(_ initial: StoredSession, generation: SessionGeneration) async {
        var stored = initial
        var credentials = Credentials(accessToken: initial.accessToken, refreshToken: initial.refreshToken, version: 1)
        var unpersisted: (StoredSession, Credentials)?
        var failures = 0
        // One refresh per attempt: a fresh access token refused again is retried after the backoff, not refreshed
        // again at once (001: each original request is retried once with the new access token).
        var refreshedThisAttempt = false
        while machine.isRestoring(generation) {
            let failure: FailureClass
            if let (pendingSession, pendingCredentials) = unpersisted {
                switch await vault.commit(.setActive(pendingSession), ifGeneration: generation) {
                case .committed:
                    (stored, credentials, unpersisted) = (pendingSession, pendingCredentials, nil)
                    machine.restoreFound(stored, generation: generation)
                    continue
                case .stale:
                    return
                case .failed(let storageFailure):
                    // DEFECT restore-uses-unstored-pair: the pair that could not be stored is used all the same.
                    if defects.contains(.restoreUsesUnstoredPair) {
                        (stored, credentials, unpersisted) = (pendingSession, pendingCredentials, nil)
                        continue
                    }
                    failure = storageFailure
                }
            } else {
                switch await api.profile(credentials.accessToken) {
                case .profile(let profile) where profile.accountID == stored.account:
                    if let validated = machine.restoreValidated(stored, credentials: credentials, generation: generation) {
                        complete(validated)
                    }
                    return
                case .profile:
                    if let ended = machine.restoreFailed(reason: .accountMismatch, failure: .unexpectedResponse, revoke: true, generation: generation) {
                        await finish(ended)
                    }
                    return
                // DEFECT restore-refreshes-again-at-once: without this case a fresh token refused again is
                // refreshed again at once, for as long as the server refuses it.
                case .unauthorized where refreshedThisAttempt && !defects.contains(.restoreRefreshesAgainAtOnce):
                    failure = .unexpectedResponse
                // DEFECT restore-signs-out-on-refused-token: a refused access token (401 invalid_token) is taken for a
                // rejected session, and the still-valid refresh token is never tried.
                case .unauthorized where defects.contains(.restoreSignsOutOnRefusedToken):
                    if let ended = machine.restoreFailed(reason: .storedSessionRejected, failure: .unexpectedResponse, revoke: false, generation: generation) {
                        await finish(ended)
                    }
                    return
                case .unauthorized:
                    logger.log(.info, "restore.refresh", ["account": stored.account.rawValue])
                    refreshedThisAttempt = true
                    var outcome = await api.refresh(credentials.refreshToken)
                    if case .timedOut(let late) = outcome {
                        // The deadline passed. The token is not sent again while the reply may still come (the server
                        // may have rotated it): restoring goes on until it does, as for a server answering nothing.
                        machine.restoreStalled(.timeout, generation: generation)
                        logger.log(.notice, "restore.refresh-overdue", ["account": stored.account.rawValue])
                        outcome = await late.value
                    }
                    switch outcome {
                    case .granted(let grant):
                        let fresh = Credentials(
                            grant: grant, previousRefreshToken: credentials.refreshToken, version: credentials.version + 1,
                            receivedAt: tokenReceivedAt(grant), leeway: configuration.refreshLeeway
                        )
                        let session = StoredSession(sessionID: stored.sessionID, account: stored.account, accessToken: fresh.accessToken, refreshToken: fresh.refreshToken)
                        unpersisted = (session, fresh)
                        continue
                    case .rejected(let rejection):
                        if let ended = machine.restoreFailed(reason: .storedSessionRejected, failure: rejection, revoke: false, generation: generation) {
                            await finish(ended)
                        }
                        return
                    case .failed(let refreshFailure):
                        failure = refreshFailure
                    case .timedOut:
                        failure = .timeout
                    }
                case .failed(let profileFailure):
                    failure = profileFailure
                }
            }
            failures += 1
            machine.restoreStalled(failure, generation: generation)
            logger.log(.notice, "restore.deferred", ["failureClass": failure.rawValue, "attempt": String(failures)])
            await pause(.restore, for: backoffDelay(configuration.restoreBackoff, failures: failures))
            refreshedThisAttempt = false
        }
    }

    private func complete(_ validated: RestoreValidated) {
        emit(validated.transition)
        for waiter in validated.waiters { waiter.resume(.success(validated.ticket)) }
        for waiter in validated.settleWaiters { waiter.resume(validated.snapshot) }
    }
}
