import Foundation

/// The client side of the server's HTTP API: builds requests, sends them through the injected transport,
/// and classifies every answer. Knows nothing about session state; in particular `refresh` is a plain
/// call that never passes through the 401 handling of resource requests.
struct AuthAPI: Sendable {
    let transport: any HTTPTransport
    let paths: APIPaths
    var dialect: APIDialect = .jsonV1
    /// The known-bad variant's defects (docs/known-bad.md); empty for the reference.
    var defects: Set<SessionKitDefect> = []
    /// How long an exchange may stay unanswered before it fails as a timeout; nil: as long as the transport waits.
    var deadline: ExchangeDeadline?

    enum LoginOutcome: Sendable {
        case granted(TokenGrant)
        case invalidCredentials
        case failed(FailureClass)
    }

    enum RefreshOutcome: Sendable {
        case granted(TokenGrant)
        /// Explicit rejection: the only outcome that signs out.
        case rejected(FailureClass)
        case failed(FailureClass)
        /// No reply by the deadline: a timeout, which is indefinite (the server may have rotated the pair). The
        /// exchange still runs; `late` gives its outcome if the reply ever comes.
        case timedOut(late: Task<RefreshOutcome, Never>)
    }

    enum ProfileOutcome: Sendable {
        case profile(AccountProfile)
        case unauthorized
        case failed(FailureClass)
    }

    enum ResourceOutcome: Sendable {
        case content(Data)
        case unauthorized
        case forbidden
        case notFound
        case failed(FailureClass)
    }

    enum RevokeOutcome: Sendable {
        case revoked
        case retryable(FailureClass)
        /// A definitive refusal (4xx): the token is unusable anyway, drop it from the queue.
        case refused(status: Int)
    }

    func login(email: String, password: String) async -> LoginOutcome {
        // Built by assignment, never a dictionary literal: field names come from a world profile, and a literal
        // with two equal keys traps. Lint refuses such a profile; this must not trap on one given in code.
        var fields: [String: String] = [:]
        fields[dialect.usernameField] = email
        fields[dialect.passwordField] = password
        if let grantType = dialect.signInGrantType { fields["grant_type"] = grantType }
        let request = post(paths.login, fields, dialect.signInEncoding)
        switch await exchange(request) {
        case .failure(let failure):
            return .failed(failure)
        case .success(let response) where (200..<300).contains(response.status):
            guard var grant = WireFormat.grant(from: response.body, accountField: dialect.tokenResponseAccountField),
                  grant.refreshToken != nil else {
                return .failed(.unexpectedResponse)
            }
            if case .profile(let field) = dialect.accountID {
                // The token response does not name the account: the profile, read with the new token, does.
                switch await profileAccount(grant.accessToken, field: field) {
                case .account(let account): grant.account = account
                case .failed(let failure): return .failed(failure)
                }
            }
            guard grant.account != nil else { return .failed(.unexpectedResponse) }
            grant.serverDate = serverDate(response)
            return .granted(grant)
        case .success(let response) where response.status == 400 || response.status == 401:
            return .invalidCredentials
        case .success(let response):
            return .failed(Self.failureClass(status: response.status))
        }
    }

    /// `bearer` is only ever set by the refresh-through-401-handler defect (the reference's refresh carries
    /// no access token).
    func refresh(_ refreshToken: RefreshToken, bearer: AccessToken? = nil) async -> RefreshOutcome {
        var fields: [String: String] = [:]
        fields[dialect.refreshTokenField] = refreshToken.secretValue
        fields["grant_type"] = dialect.refreshGrantType
        var request = post(paths.refresh, fields, dialect.refreshEncoding)
        if let bearer { request.headers["Authorization"] = "Bearer \(bearer.secretValue)" }
        let api = self
        switch await racedExchange(request) {
        case .finished(let exchange): return refreshOutcome(exchange)
        case .timedOut(let late): return .timedOut(late: Task(executorPreference: deadline?.taskExecutor) { api.refreshOutcome(await late.value) })
        }
    }

    private func refreshOutcome(_ exchange: Exchange) -> RefreshOutcome {
        switch exchange {
        case .failure(let failure):
            return .failed(failure)
        case .success(let response) where (200..<300).contains(response.status):
            guard var grant = WireFormat.grant(from: response.body, accountField: dialect.tokenResponseAccountField) else {
                return .failed(.unexpectedResponse)
            }
            // DEFECT reuse-rotated-refresh-token: only `access_token` is read from the refresh response; the
            // rotated refresh token is dropped and the old one is kept (and sent again next time).
            if defects.contains(.reuseRotatedRefreshToken) { grant.refreshToken = nil }
            grant.serverDate = serverDate(response)
            return .granted(grant)
        case .success(let response) where response.status == 400 || response.status == 401:
            switch WireFormat.oauthError(from: response.body) {
            case "invalid_grant": return .rejected(.invalidGrant)
            case "session_revoked": return .rejected(.sessionRevoked)
            default: return .failed(.unexpectedResponse)
            }
        case .success(let response):
            return .failed(Self.failureClass(status: response.status))
        }
    }

    /// The response's `Date`, for the one defect that reads it (proactive-refresh-storm-after-clock-jump).
    private func serverDate(_ response: HTTPResponse) -> Date? {
        guard defects.contains(.proactiveRefreshStormAfterClockJump) else { return nil }
        return response.headers.first { $0.key.caseInsensitiveCompare("Date") == .orderedSame }.flatMap { WireFormat.httpDate($0.value) }
    }

    func revoke(_ refreshToken: RefreshToken) async -> RevokeOutcome {
        var fields: [String: String] = [:]
        fields[dialect.revocationTokenField] = refreshToken.secretValue
        fields["token_type_hint"] = "refresh_token"
        let request = post(paths.revoke, fields, dialect.revocationEncoding)
        switch await exchange(request) {
        case .failure(let failure):
            return .retryable(failure)
        case .success(let response) where (200..<300).contains(response.status):
            return .revoked
        case .success(let response) where response.status >= 500 || response.status == 429:
            return .retryable(Self.failureClass(status: response.status))
        case .success(let response):
            return .refused(status: response.status)
        }
    }

    func profile(_ accessToken: AccessToken) async -> ProfileOutcome {
        switch await exchange(authorizedGet(paths.profile, accessToken)) {
        case .failure(let failure):
            return .failed(failure)
        case .success(let response) where (200..<300).contains(response.status):
            guard let body = WireFormat.profile(from: response.body, accountField: dialect.profileAccountField) else {
                return .failed(.unexpectedResponse)
            }
            return .profile(body)
        case .success(let response) where response.status == 401:
            return .unauthorized
        case .success(let response):
            return .failed(Self.failureClass(status: response.status))
        }
    }

    func resource(_ name: String, _ accessToken: AccessToken) async -> ResourceOutcome {
        switch await exchange(authorizedGet(paths.resourcePrefix + name, accessToken)) {
        case .failure(let failure):
            return .failed(failure)
        case .success(let response) where (200..<300).contains(response.status):
            return .content(response.body)
        case .success(let response) where response.status == 401:
            return .unauthorized
        case .success(let response) where response.status == 403:
            return .forbidden
        case .success(let response) where response.status == 404:
            return .notFound
        case .success(let response):
            return .failed(Self.failureClass(status: response.status))
        }
    }

    static func failureClass(status: Int) -> FailureClass {
        if status >= 500 { return .serverError }
        if status == 429 { return .rateLimited }
        return .unexpectedResponse
    }

    /// The outcome of one exchange: a response of any status, or the class of the transport failure.
    private enum Exchange: Sendable {
        case success(HTTPResponse)
        case failure(FailureClass)
    }

    /// An exchange other than a refresh, left to the transport's own timeout: only the refresh is one every
    /// request may end up waiting for, so only it gets a deadline on the session clock (`racedExchange`).
    private func exchange(_ request: HTTPRequest) async -> Exchange {
        await Self.send(request, transport)
    }

    private func racedExchange(_ request: HTTPRequest) async -> ExchangeDeadline.Raced<Exchange> {
        let transport = transport
        // DEFECT no-request-deadline: no deadline is armed, so a request the server never answers blocks its
        // callers (and the refresh every request waits for) for as long as the transport waits: forever.
        guard let deadline, !defects.contains(.noRequestDeadline) else { return .finished(await Self.send(request, transport)) }
        return await deadline.race(cancelled: .failure(.cancelled)) { await Self.send(request, transport) }
    }

    private static func send(_ request: HTTPRequest, _ transport: any HTTPTransport) async -> Exchange {
        do {
            return .success(try await transport.send(request))
        } catch {
            return .failure(FailureClass(error))
        }
    }

    /// A `POST` of string fields, as JSON (sorted keys) or form-encoded.
    private func post(_ path: String, _ fields: [String: String], _ encoding: APIDialect.Encoding) -> HTTPRequest {
        switch encoding {
        case .json:
            return HTTPRequest(method: .post, path: path, headers: ["Content-Type": "application/json"], body: WireFormat.encode(fields))
        case .form:
            return HTTPRequest(method: .post, path: path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                               body: WireFormat.formEncode(fields))
        }
    }

    /// The account the profile names, for a sign-in whose token response does not.
    private func profileAccount(_ accessToken: AccessToken, field: String) async -> AccountLookup {
        switch await exchange(authorizedGet(paths.profile, accessToken)) {
        case .failure(let failure):
            return .failed(failure)
        case .success(let response) where (200..<300).contains(response.status):
            guard let profile = WireFormat.profile(from: response.body, accountField: field) else { return .failed(.unexpectedResponse) }
            return .account(profile.accountID)
        case .success(let response):
            return .failed(Self.failureClass(status: response.status))
        }
    }

    private enum AccountLookup {
        case account(AccountID)
        case failed(FailureClass)
    }

    private func authorizedGet(_ path: String, _ accessToken: AccessToken) -> HTTPRequest {
        HTTPRequest(method: .get, path: path, headers: ["Authorization": "Bearer \(accessToken.secretValue)"])
    }
}
