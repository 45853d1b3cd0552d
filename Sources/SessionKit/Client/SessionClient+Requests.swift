import Foundation

/// Authenticated requests: admitted by the state machine, tagged with the generation, retried once after
/// a 401 (with the current token, or after the shared refresh), discarded when their generation is stale.
extension SessionClient {
    /// Fetches `GET /resources/{name}` for the current account and shows it. Waits while restoring or
    /// refreshing; throws `notAuthenticated` at once when signed out.
    public func fetch(_ resource: String) async throws(SessionError) -> ResourceContent {
        do {
            return try await fetchAndShow(resource)
        } catch {
            // DEFECT prompt-per-screen: the screen whose request failed because there is no session opens the
            // sign-in screen itself, as does every other screen that failed the same way.
            if defects.contains(.promptPerScreen), [.sessionEnded, .notAuthenticated].contains(error.code) {
                environment.ui.present(.signInPromptShown(reason: .sessionRejected))
            }
            throw error
        }
    }

    private func fetchAndShow(_ resource: String) async throws(SessionError) -> ResourceContent {
        guard Self.isValidResourceName(resource) else { throw SessionError(.invalidInput, context: "resource names are [A-Za-z0-9._-]+") }
        if let provisional = await provisionalContent(resource) { return provisional }
        if let sticky = stickyRefreshFailure { throw sticky }
        let now = expiryClockNow()
        var ticket = try await awaitAdmission { machine, waiter in machine.requestAdmission(waiter, now: now) }.get()
        var retried = false
        while true {
            guard let response = await send(resource, with: ticket) else {
                throw SessionError(.sessionEnded, context: "the session ended while the request was in flight")
            }
            switch response {
            case .content(let body):
                return try await deliver(body, resource: resource, ticket: ticket, origin: .network)
            case .unauthorized:
                guard machine.isCurrent(ticket) else { throw staleResponse(resource) }
                // DEFECT unlimited-retries: a request refused again after its retry refreshes and retries again.
                // DEFECT paced-unlimited-retries: the same, after waiting a moment first.
                if retried, defects.contains(.pacedUnlimitedRetries) { try? await environment.clock.sleep(for: .milliseconds(500)) }
                guard !retried || defects.contains(.unlimitedRetries) || defects.contains(.pacedUnlimitedRetries) else {
                    logger.log(.notice, "request.unauthorized-after-retry", ["resource": resource])
                    throw SessionError(.unauthorized, context: "refused again after one retry with a fresh token")
                }
                retried = true
                let rejected = ticket
                let joinsRefreshInFlight = machine.snapshot.phase == .refreshing
                ticket = try await awaitAdmission { machine, waiter in machine.unauthorized(rejected, waiter: waiter) }.get()
                // DEFECT login-per-waiter: having waited on the shared refresh, the request obtains credentials by a
                // login of its own (one refresh, then a login per waiter, each overwriting the stored pair).
                if joinsRefreshInFlight, defects.contains(.loginPerWaiter), rememberedSignIn != nil {
                    ticket = try await awaitAdmission { machine, waiter in machine.loginAfterSharedRefresh(waiter) }.get()
                }
                logger.log(.debug, "request.retry", ["resource": resource, "tokenVersion": String(ticket.credentialVersion)])
            case .forbidden:
                guard machine.isCurrent(ticket) else { throw staleResponse(resource) }
                throw SessionError(.forbidden, context: "the server refused access to this resource")
            case .notFound:
                guard machine.isCurrent(ticket) else { throw staleResponse(resource) }
                throw SessionError(.notFound)
            case .failed(let failure):
                guard machine.isCurrent(ticket) else { throw staleResponse(resource) }
                if failure.isConnectivity, configuration.offlinePolicy.allows(resource),
                   let body = await cache.lookup(resource: resource, account: ticket.account) {
                    return try await deliver(body, resource: resource, ticket: ticket, origin: .offlineCache)
                }
                throw SessionError(Self.errorCode(for: failure), failureClass: failure, context: "request failed")
            }
        }
    }

    /// Shows content only if its generation is still current, then caches it under its account.
    private func deliver(_ body: Data, resource: String, ticket: RequestTicket, origin: ContentOrigin) async throws(SessionError) -> ResourceContent {
        guard machine.isCurrent(ticket) else { throw staleResponse(resource) }
        let content = ResourceContent(resource: resource, account: ticket.account, body: body, origin: origin, generation: ticket.generation)
        environment.ui.present(.contentShown(content))
        if origin == .network {
            await cache.store(body, resource: resource, account: ticket.account, generation: ticket.generation)
        }
        return content
    }

    /// While restoring, the offline policy may allow a cached resource of the stored account, marked as
    /// shown before validation. Anything else waits for validation.
    private func provisionalContent(_ resource: String) async -> ResourceContent? {
        // DEFECT cache-shown-while-restoring: any cached resource of the stored account is shown before the
        // session is validated, not only what the declared offline policy names.
        let allowed = configuration.offlinePolicy.allows(resource) || defects.contains(.cacheShownWhileRestoring)
        guard allowed, let (account, generation) = machine.restoringAccount() else { return nil }
        guard let body = await cache.lookup(resource: resource, account: account) else { return nil }
        guard let (stillAccount, stillGeneration) = machine.restoringAccount(), stillAccount == account, stillGeneration == generation else { return nil }
        let content = ResourceContent(resource: resource, account: account, body: body, origin: .cacheBeforeValidation, generation: generation)
        environment.ui.present(.contentShown(content))
        return content
    }

    private func staleResponse(_ resource: String) -> SessionError {
        logger.log(.notice, "response.stale-discarded", ["resource": resource])
        return SessionError(.sessionChanged, context: "the response belonged to an older session and was discarded")
    }

    static func errorCode(for failure: FailureClass) -> SessionError.Code {
        switch failure {
        case .serverError, .rateLimited: .serverError
        case .cancelled: .cancelled
        case .unexpectedResponse: .invalidResponse
        case .storageLocked, .storageUnavailable: .storageUnavailable
        case .timeout, .offline, .connectionLost, .invalidGrant, .sessionRevoked, .invalidCredentials: .transportFailure
        }
    }

    static func isValidResourceName(_ name: String) -> Bool {
        guard let first = name.first, first != ".", name.count <= 128 else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }
}
