import Foundation

/// Sign-in and account switch: input validated before any request; then login, the new pair persisted
/// before first use, the profile fetched, and `authenticated` in a new generation.
extension SessionClient {
    /// Signs in from `signedOut`. Throws `invalidInput` without any request when the email is malformed
    /// or the password shorter than `minimumPasswordLength`.
    public func signIn(email: String, password: String) async throws(SessionError) -> AccountProfile {
        try validateInput(email: email, password: password)
        let ticket = try machine.beginSignIn().get()
        stickyRefreshFailure = nil
        for transition in ticket.transitions { emit(transition) }
        return try await completeSignIn(ticket, email: email, password: password)
    }

    /// Ends the current account's session (generation incremented, its cache and pending requests
    /// cleared, its refresh token queued for revocation) and signs in the next account.
    public func switchAccount(email: String, password: String) async throws(SessionError) -> AccountProfile {
        try validateInput(email: email, password: password)
        let (ended, ticket) = try machine.beginAccountSwitch().get()
        // DEFECT switch-end-not-durable: the switch's end writes no session-end marker.
        await finish(ended, noted: !defects.contains(.switchEndNotDurable))
        for transition in ticket.transitions { emit(transition) }
        return try await completeSignIn(ticket, email: email, password: password)
    }

    private func validateInput(email: String, password: String) throws(SessionError) {
        // DEFECT no-input-validation: the form goes straight to the server.
        if defects.contains(.noInputValidation) { return }
        // DEFECT address-domain-not-checked: an address is "something, then @"; what follows is not looked at.
        if defects.contains(.addressDomainNotChecked) {
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, password.count >= validator.minimumPasswordLength else {
                throw SessionError(.invalidInput, context: "email or password is not valid")
            }
            return
        }
        do {
            try validator.validate(email: email, password: password)
        } catch {
            logger.log(.info, "signin.input-rejected", ["reason": error.context])
            throw error
        }
    }

    /// Where the password-kept-in-preferences defect keeps the password.
    static let rememberedPasswordKey = "auth.remembered-password"

    private func completeSignIn(_ ticket: SignInTicket, email: String, password: String) async throws(SessionError) -> AccountProfile {
        let generation = ticket.generation
        let grant: TokenGrant
        switch await api.login(email: email, password: password) {
        case .granted(let granted):
            grant = granted
        case .invalidCredentials:
            throw signInFailed(generation, reason: .invalidCredentials, failure: .invalidCredentials, code: .invalidCredentials)
        case .failed(let failure):
            throw signInFailed(generation, reason: .signInFailed, failure: failure, code: Self.errorCode(for: failure))
        }
        guard machine.isSigningIn(generation), let account = grant.account else {
            // Superseded (signed out meanwhile): the server's new session is never stored or used, and revoked.
            if let account = grant.account {
                _ = await vault.commit(.endSession(sessionID: "", account: account, revoke: grant.refreshToken), ifGeneration: nil)
                await revocations.kick()
            }
            throw SessionError(.sessionChanged, context: "sign-in superseded")
        }
        let credentials = Credentials(
            grant: grant, previousRefreshToken: nil, version: 1,
            receivedAt: tokenReceivedAt(grant), leeway: configuration.refreshLeeway
        )
        let session = StoredSession(sessionID: makeSessionID(), account: account, accessToken: credentials.accessToken, refreshToken: credentials.refreshToken)
        // DEFECT launch-trusts-session-hint: the flag that later launches trust instead of secure storage.
        if defects.contains(.launchTrustsSessionHint) { try? await environment.preferences.setValue(Data("1".utf8), for: Self.sessionHintKey) }
        switch await vault.commit(.setActive(session), ifGeneration: generation) {
        case .committed:
            // DEFECT password-kept-in-preferences: the password is kept for a silent sign-in later, in plain
            // preferences, until the next sign-in replaces it.
            if defects.contains(.passwordKeptInPreferences) {
                try? await environment.preferences.setValue(Data(password.utf8), for: Self.rememberedPasswordKey)
            }
            // DEFECT login-per-waiter: the password is kept in memory for the waiters' own logins.
            if defects.contains(.loginPerWaiter) { rememberedSignIn = (email, password) }
            // DEFECT sign-in-drops-revocation-queue: the new session's record is written from scratch; the refresh
            // tokens of ended sessions still waiting to be revoked are lost with the old one.
            if defects.contains(.signInDropsRevocationQueue), let record = try? await vault.load() {
                for pending in record.pendingRevocations {
                    _ = await vault.commit(.removeRevocation(id: pending.id), ifGeneration: nil)
                }
            }
        case .stale:
            throw SessionError(.sessionChanged, context: "sign-in superseded")
        case .failed(let failure):
            throw signInFailed(generation, reason: .signInFailed, failure: failure, code: .storageUnavailable)
        }
        let failure: FailureClass
        switch await api.profile(credentials.accessToken) {
        case .profile(let profile) where profile.accountID == account:
            guard let transition = machine.signInSucceeded(generation, session: session, credentials: credentials) else {
                _ = await vault.commit(.endSession(sessionID: session.sessionID, account: account, revoke: session.refreshToken), ifGeneration: nil)
                await revocations.kick()
                throw SessionError(.sessionChanged, context: "sign-in superseded")
            }
            emit(transition)
            return profile
        case .profile, .unauthorized:
            failure = .unexpectedResponse
        case .failed(let profileFailure):
            failure = profileFailure
        }
        // The pair is stored but the sign-in failed: drop it and revoke it remotely.
        _ = await vault.commit(.endSession(sessionID: session.sessionID, account: account, revoke: session.refreshToken), ifGeneration: nil)
        await revocations.kick()
        throw signInFailed(generation, reason: .signInFailed, failure: failure, code: Self.errorCode(for: failure))
    }

    private func signInFailed(_ generation: SessionGeneration, reason: TransitionReason, failure: FailureClass, code: SessionError.Code) -> SessionError {
        // DEFECT failed-sign-in-stays-signing-in: the form hears of the failure, the session state never does.
        if defects.contains(.failedSignInStaysSigningIn), failure != .invalidCredentials {
            return SessionError(code, failureClass: failure, context: "sign-in failed")
        }
        if let transition = machine.signInFailed(generation, reason: reason, failure: failure) { emit(transition) }
        return SessionError(code, failureClass: failure, context: "sign-in failed")
    }
}
