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
    /// nothing in flight can write back).
    func finish(_ ended: EndedSession, cancellingInFlight: Bool = true) async {
        for transition in ended.transitions { emit(transition) }
        for waiter in ended.waiters { waiter.resume(.failure(ended.error)) }
        let cancelled = ended.waiters.count + (cancellingInFlight ? cancelStaleInFlight(current: ended.snapshot.generation) : 0)
        if cancelled > 0 {
            logger.log(.info, "requests.cancelled", ["count": String(cancelled), "code": ended.error.code.rawValue])
        }
        wakeAll()
        if let account = ended.account {
            environment.ui.present(.contentCleared(account: account))
        }
        if let sessionID = ended.sessionID, let account = ended.account {
            let result = await vault.commit(.endSession(sessionID: sessionID, account: account, revoke: ended.revoke), ifGeneration: nil)
            if case .failed(let failure) = result {
                logger.log(.warning, "storage.clear-failed", ["failureClass": failure.rawValue])
            }
        }
        if let account = ended.account {
            await cache.clear(account: account)
        }
        if let prompt = ended.prompt {
            environment.ui.present(.signInPromptShown(reason: prompt))
        }
        for waiter in ended.settleWaiters { waiter.resume(ended.snapshot) }
        if ended.revoke != nil { await revocations.kick() }
    }
}
