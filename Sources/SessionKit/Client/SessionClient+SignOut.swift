/// Sign-out, rejection and switch all end a session the same way: one transition, then everything
/// sensitive is cleared together before the (single) sign-in prompt.
extension SessionClient {
    /// Signs out at once: new authenticated requests are blocked and pending ones cancelled the moment
    /// this is called, credentials and the account's cache are cleared, and the refresh token is revoked
    /// remotely, or queued in secure storage when that fails (offline) and retried later.
    public func signOut() async {
        guard let ended = machine.signOut() else {
            logger.log(.info, "signout.ignored", ["phase": machine.snapshot.phase.rawValue])
            return
        }
        // DEFECT sign-out-leaves-requests-in-flight: sign-out clears storage and state, but the requests already
        // on the wire are left to run until their responses arrive.
        await finish(ended, cancellingInFlight: !defects.contains(.signOutLeavesRequestsInFlight))
    }

    /// Performs a session end decided by the state machine (which already moved the generation on, so
    /// nothing in flight can write back). The end is made durable before it is told: a marker in preferences,
    /// then the secure-storage record; a process killed before the marker lands restarts in the session as it
    /// was, one killed after it finishes the end at the next launch (`runRestore`), never restores the ended
    /// session.
    func finish(_ ended: EndedSession, cancellingInFlight: Bool = true, noted: Bool = true) async {
        // DEFECT end-told-before-durable: the end is told at once, and only then written, with no marker; a kill
        // before the write lands (or a failed write) brings the ended session back at the next launch.
        let toldFirst = defects.contains(.endToldBeforeDurable)
        if toldFirst { for transition in ended.transitions { emit(transition) } }
        let slot = reserveEmission()
        let cancelled = ended.waiters.count + (cancellingInFlight ? cancelStaleInFlight(current: ended.snapshot.generation) : 0)
        wakeAll()
        var durable = true
        var marker: SessionEndMarker?
        var marked = false
        // DEFECT never-revokes: the ended session's refresh token is only forgotten on the device, never queued for revocation.
        let revoke = defects.contains(.neverRevokes) ? nil : ended.revoke
        if let sessionID = ended.sessionID, let account = ended.account {
            let written = SessionEndMarker(sessionID: sessionID, account: account, revoke: revoke != nil,
                                           uncleared: Self.uncleared(await cache.owed, besides: account))
            // DEFECT switch-end-not-durable: (`noted` false) the switch's end writes no marker, now or later.
            marker = noted ? written : nil
            marked = toldFirst || !noted ? false : await written.write(environment.preferences)
            let end = VaultMutation.endSession(sessionID: sessionID, account: account, revoke: revoke)
            var result = await vault.commit(end, ifGeneration: nil)
            // A write that failed for another reason than the lock state may be transient: try once more now.
            // Failing again, the marker stays and the next launch finishes the end.
            if case .failed(.storageUnavailable) = result { result = await vault.commit(end, ifGeneration: nil) }
            if case .failed(let failure) = result {
                logger.log(.warning, "storage.clear-failed", ["failureClass": failure.rawValue, "marked": String(marked)])
                durable = false
            }
        }
        fillEmission(slot, with: toldFirst ? [] : ended.transitions)
        for waiter in ended.waiters { waiter.resume(.failure(ended.error)) }
        if cancelled > 0 {
            logger.log(.info, "requests.cancelled", ["count": String(cancelled), "code": ended.error.code.rawValue])
        }
        if let account = ended.account {
            environment.ui.present(.contentCleared(account: account))
        }
        var cacheCleared = true
        if let account = ended.account {
            cacheCleared = await cache.clear(account: account)
        }
        // The marker goes once the record and the cache are gone; a failed clear leaves it for the next launch,
        // written again when its own write was refused or what it must name changed. Once this end is durable and
        // only other accounts' caches are owed, it names those alone: nothing of the ended account is left.
        if var marker, !toldFirst {
            let owed = await cache.owed
            if durable && cacheCleared {
                await SessionEndMarker.clear(environment.preferences)
            } else {
                if durable, !owed.contains(marker.account), let first = owed.min() {
                    marker = SessionEndMarker(sessionID: nil, account: first, revoke: false, uncleared: nil)
                }
                let uncleared = Self.uncleared(owed, besides: marker.account)
                if !marked || uncleared != marker.uncleared || marker.sessionID == nil {
                    marker.uncleared = uncleared
                    let rewritten = await marker.write(environment.preferences)
                    logger.log(.warning, "session-end.marker-kept", ["rewritten": String(rewritten), "cacheCleared": String(cacheCleared)])
                }
            }
        }
        if let prompt = ended.prompt {
            environment.ui.present(.signInPromptShown(reason: prompt))
        }
        for waiter in ended.settleWaiters { waiter.resume(ended.snapshot) }
        if revoke != nil { await revocations.kick() }
    }

    /// At launch, before the stored session is trusted: an end that a killed process (or a failed write) left
    /// unfinished is finished now (its credentials dropped, its refresh token queued for revocation). Returns
    /// the record without the ended session.
    func finishInterruptedEnd(_ record: SessionRecord) async -> SessionRecord {
        guard let marker = await SessionEndMarker.read(environment.preferences) else { return record }
        logger.log(.notice, "restore.finishing-interrupted-end", ["account": marker.account.rawValue])
        var record = record
        if let stored = record.active, stored.sessionID == marker.sessionID {
            let mutation = VaultMutation.endSession(sessionID: stored.sessionID, account: stored.account, revoke: marker.revoke ? stored.refreshToken : nil)
            mutation.apply(to: &record)
            if case .failed(let failure) = await vault.commit(mutation, ifGeneration: nil) {
                // Still not durable: the marker stays, and this launch does not restore the session either. Its cache
                // goes now all the same (the vault applies the end with its next write that succeeds).
                logger.log(.warning, "storage.clear-failed", ["failureClass": failure.rawValue])
                if !defects.contains(.interruptedEndKeepsCache) {
                    for account in marker.accountsToClear { _ = await cache.clear(account: account) }
                }
                return record
            }
        }
        // The ended session's cache goes with it, as in `finish`: a later session of the same account must not
        // show it while restoring (000: nothing private before the session is validated). So do the caches an
        // earlier refused clear still owed. A clear refused again keeps the marker for the next launch.
        var cleared = true
        // DEFECT interrupted-end-keeps-cache: the credentials go, the ended session's cache stays.
        if !defects.contains(.interruptedEndKeepsCache) {
            // Each clear retries every one still owed, so the last one says whether any is.
            for account in marker.accountsToClear { cleared = await cache.clear(account: account) }
        }
        if cleared {
            await SessionEndMarker.clear(environment.preferences)
        } else {
            logger.log(.warning, "session-end.marker-kept", ["cacheCleared": "false"])
        }
        return record
    }

    /// The accounts other than `account` whose cache clear is owed, in order; nil when there are none.
    static func uncleared(_ owed: Set<AccountID>, besides account: AccountID) -> [AccountID]? {
        let others = owed.subtracting([account]).sorted()
        return others.isEmpty ? nil : others
    }
}
