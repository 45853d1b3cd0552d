import ConformanceProtocol
import JSONCore
import POSIXSync

/// A deliberately simple client of the session lifecycle for the runner's tests: a synchronous state machine
/// that reacts to each runner message by emitting messages, names its effects e1, e2, ... and remembers what
/// each effect waits for. By default it follows the protocol and the spec as far as the tests need (no sleeps,
/// backoff or offline queues); each `Defect` breaks exactly one behaviour that one oracle looks for.
final class FakeSessionClient: InProcessClient {
    /// One broken behaviour; each names the oracle (in Sources/ConformanceRunner/Oracles) meant to catch it.
    enum Defect: String, CaseIterable, Sendable {
        /// transitions-follow-state-machine: `sign-in-succeeded` keeps the generation instead of incrementing it.
        case keepsGenerationOnSignIn
        /// transitions-follow-state-machine: `refresh-rejected` keeps the generation instead of incrementing it.
        case keepsGenerationOnRejection
        /// transitions-follow-state-machine: a successful sign-in reports reaching `refreshing`, not `authenticated`.
        case signInReachesRefreshing
        /// no-token-in-client-output: logs the first twelve characters of the new access token at sign-in.
        case logsTokenPrefix
        /// single-refresh-in-flight: each 401 starts its own refresh.
        case refreshPerRequest
        /// no-token-in-client-output: logs the new access token at sign-in.
        case logsToken
        /// no-token-in-client-output: also writes the token pair to preferences.
        case pairInPreferences
        /// new-tokens-persisted-before-use: retries with the new access token before storing the pair.
        case usesTokenBeforeStoring
        /// new-tokens-persisted-before-use: stores access and refresh token as two storage items.
        case splitsPair
        /// rotated-refresh-token-never-sent: keeps presenting the session's first refresh token after rotation.
        case resendsRotatedRefreshToken
        /// no-request-with-ended-session-token: keeps the old access token after sign-out and uses it.
        case usesTokenAfterSignOut
        /// stale-refresh-result-discarded: writes a refresh result that arrived after the session ended.
        case writesLateRefreshResult
        /// content-belongs-to-current-account: shows a late response of the previous account after a switch.
        case showsLateResponseAfterSwitch
        /// request-retried-at-most-once: re-sends a request that keeps getting 401 up to three times.
        case retriesThreeTimes
        /// refresh-bypasses-401-handling: sends the refresh call with an Authorization header.
        case refreshWithAuthorization
        /// one-sign-in-prompt-per-sign-out: shows one sign-in prompt per request that failed with the session.
        case promptPerFailedRequest
        /// only-explicit-rejection-signs-out: signs out when the refresh gets a 503.
        case signsOutOnServerError
        /// only-explicit-rejection-signs-out: signs out when secure storage is locked at launch.
        case signsOutWhenLocked
        /// restore-validated-with-server: goes authenticated at launch because a token is stored.
        case trustsStoredToken
        /// background-tokens-after-first-unlock: stores tokens `whenUnlocked` (while declaring background refresh).
        case storesWhenUnlocked
        /// restore-reads-credentials-first: keeps the session in memory across launches (an adapter that never
        /// really restarts its client) and validates it at launch without reading secure storage.
        case keepsSessionAcrossLaunches
        /// stale-401-retried-with-latest-token: a 401 for an access token already replaced starts a refresh.
        case refreshesOnStale401
        /// retries-wait-for-the-refresh: a 401 while a refresh is in flight re-sends the request at once, with the
        /// current access token, instead of waiting for the refresh.
        case retriesWithoutWaiting
        /// ended-session-credentials-cleared: deletes nothing from secure storage when a session ends.
        case keepsTokensAfterSessionEnds
        /// sign-in-input-validated-first: sends the login request without validating the input.
        case skipsInputValidation
        /// Not a defect of an oracle's: never refreshes, a 401 just fails the request (a client with no trigger).
        case ignores401
        /// no-silent-sign-in-after-rejection: when the server rejects the stored session while restoring, signs in
        /// again with the last sign-in's credentials (kept across launches) instead of ending the session.
        case signsInAgainAfterRejection
    }

    /// What outlives one instance of the client: only `keepsSessionAcrossLaunches` and `signsInAgainAfterRejection` use it. Shared by every
    /// client a launcher makes from one configuration.
    final class Memory: Sendable {
        let session = Locked<Session?>(nil)
        /// The last sign-in's email and password: only `signsInAgainAfterRejection` keeps them.
        let credentials = Locked<(email: String, password: String)?>(nil)
    }

    /// Ways to break the protocol itself, triggered by a `request` of the named resource.
    enum Sabotage: Sendable, Hashable {
        /// From that request on, barriers are never answered.
        case stopAnsweringBarriers(onResource: String)
        /// Says `hello` again in the middle of the conversation.
        case helloAgain(onResource: String)
        /// Answers a command id the runner never sent.
        case resultForUnknownCommand(onResource: String)
        /// Abandons the effect with this id (which may be unknown, answered, or a storage change).
        case abandon(effect: String, onResource: String)
    }

    /// How a correct client may report its transitions other than by the machine's own IDs.
    struct Reporting: Sendable {
        /// Names reported instead of the machine's IDs (an old name, an alias, a name of the client's own).
        var names: [String: String] = [:]
        /// Optional transitions never reported: the client never shows their `to` state, and a transition that
        /// only takes it back from there is not reported either.
        var unshown: Set<String> = []
    }

    struct Configuration: Sendable {
        var capabilities: [String] = []
        var defects: Set<Defect> = []
        var reporting = Reporting()
        var sabotage: Sabotage?
        /// The protocol version the client claims in its `hello`.
        var protocolVersion = adapterProtocolVersion
        /// What its `hello` declares starts its refreshes; nil: undeclared.
        var refreshTriggers: [String]?
        /// A proactive client: this many seconds after a pair arrived, a timer of its own (a `sleep`) starts the
        /// refresh. Nil: it refreshes only on a 401.
        var refreshTimer: Double?
        /// A deadline on each refresh (a `sleep` raced against it): when it passes first the refresh is deferred as a
        /// timeout, its waiters fail, and the next 401 starts a new refresh.
        var refreshDeadline: Double?
        /// Whether the client tells the runner it gave up on the timed-out refresh (`abandon`), and on the deadline's
        /// sleep once the refresh was answered first; without it both stay outstanding.
        var abandonsWhatItGivesUpOn = true
        /// A deadline on each app request (a `sleep` raced against it), as URLSession's or OkHttp's: when it passes
        /// first the request is abandoned and its command fails with `timeout`.
        var requestDeadline: Double?
        /// A process-wide token lock, as some OAuth libraries hold one: a login waits while a refresh is on the
        /// wire (even one of an ended session) and is sent once it is answered.
        var loginWaitsForRefreshOnTheWire = false
        /// A launch that refreshes the stored session instead of asking `GET /me` (000: "validate or refresh the
        /// session with the server").
        var refreshesAtLaunch = false
        let memory = Memory()
    }

    static let implementation = ImplementationInfo(name: "FakeSessionClient", version: "1.0.0", language: "Swift",
                                                   platform: "test")

    /// The token pair of a session, as stored under the key "session".
    struct Session: Equatable, Sendable {
        var account: String
        var access: String
        var refresh: String

        var stored: String {
            JSONValue.object(["access_token": .string(access), "refresh_token": .string(refresh),
                              "account": .string(account)]).jsonText
        }

        init(account: String, access: String, refresh: String) {
            self.account = account
            self.access = access
            self.refresh = refresh
        }

        init?(stored text: String) {
            guard let value = try? JSONParser.parse(text), let access = value["access_token"]?.string,
                  let refresh = value["refresh_token"]?.string, let account = value["account"]?.string else { return nil }
            self.init(account: account, access: access, refresh: refresh)
        }

        init?(tokenResponse body: JSONValue, account fallback: String?) {
            guard let access = body["access_token"]?.string, let refresh = body["refresh_token"]?.string,
                  let account = body["account_id"]?.string ?? body["account"]?.string ?? fallback else {
                return nil
            }
            self.init(account: account, access: access, refresh: refresh)
        }
    }

    /// An app request: which command, which resource, under which generation, how often it was sent.
    struct AppRequest {
        let command: String
        let resource: String
        let generation: Int
        var sends: Int
        var token: String
    }

    /// One write of a persistence sequence.
    enum Write {
        case secure(key: String, value: String, accessibility: Accessibility)
        case preferences(key: String, value: String)
    }

    /// What to do once a session was persisted.
    enum AfterStore {
        case restoreValidated(command: String)
        case signInProfile(command: String)
        case refreshSucceeded(generation: Int)
        case nothing
    }

    /// What an effect waits for.
    enum Pending {
        case restoreRead(command: String)
        case restoreValidate(command: String, Session)
        case restoreRefresh(command: String, Session)
        case login(command: String)
        case silentLogin(command: String)
        case profile(command: String, Session)
        case resource(AppRequest)
        case refresh(generation: Int, account: String)
        /// The deadline of the refresh effect `refresh`.
        case refreshDeadline(refresh: String)
        /// The deadline of the app request effect `request`, sent for `command`.
        case requestDeadline(request: String, command: String)
        case store(Session, remaining: [Write], then: AfterStore)
        case signOutDelete(command: String)
        case switchDelete(command: String, email: String, password: String)
        /// The proactive timer armed for the pair with this access token.
        case refreshTimer(access: String)
        case nothing
    }

    let configuration: Configuration
    private var defects: Set<Defect> { configuration.defects }

    private var outbox: [AdapterMessage] = []
    private var effectCounter = 0
    private var pending: [String: Pending] = [:]
    private var welcomed = false
    private var silenced = false

    private var state: String?
    private var generation = 0
    /// The state and generation the client last reported (`Reporting.unshown` keeps some states to itself).
    private var shownState: String?
    private var shownGeneration = 0
    /// The launch whose restore has not ended yet, and the stored session it is validating.
    private var restoringLaunch: String?
    private var restoringSession: Session?
    private var session: Session?
    /// The refresh token this session started with (what `resendsRotatedRefreshToken` keeps presenting).
    private var firstRefresh: String?
    /// The access token of the session that ended, kept by `usesTokenAfterSignOut`.
    private var lingeringAccess: String?
    private var refreshInFlight = false
    /// The deadline sleep of each refresh or app request in flight, by the request's effect id.
    private var deadlines: [String: String] = [:]
    /// Requests that got a 401 and wait for the refresh in flight.
    private var waiters: [AppRequest] = []
    /// A launch whose storage read was refused because the device is locked.
    private var blockedRestore: String?
    /// Logins waiting for the token lock (`loginWaitsForRefreshOnTheWire`).
    private var parkedLogins: [(command: String, email: String, password: String, silently: Bool)] = []

    init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    convenience init(capabilities: [String] = [], defects: Set<Defect> = [], sabotage: Sabotage? = nil) {
        self.init(Configuration(capabilities: capabilities, defects: defects, sabotage: sabotage))
    }

    // MARK: InProcessClient

    func start() -> [AdapterMessage] {
        [.hello(protocolVersion: configuration.protocolVersion, implementation: Self.implementation,
                capabilities: configuration.capabilities, refreshTriggers: configuration.refreshTriggers)]
    }

    func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        switch message {
        case .welcome:
            welcomed = true
        case .error, .clock, .reset:
            break
        case .command(let command):
            perform(command)
        case .reply(let id, let body):
            if let waiting = pending.removeValue(forKey: id) { resume(waiting, with: body, id: id) }
            if !refreshOnTheWire, !parkedLogins.isEmpty {
                let parked = parkedLogins
                parkedLogins = []
                for login in parked { self.login(login.command, email: login.email, password: login.password, silently: login.silently) }
            }
        case .barrier(let id, _):
            if !silenced { emit(.barrier(id: id)) }
        }
        defer { outbox = [] }
        return outbox
    }

    // MARK: Commands

    private func perform(_ command: AppCommand) {
        guard welcomed else {
            finish(command.id, error: "notLaunched")
            return
        }
        switch command.kind {
        case .launch: launch(command.id)
        case .signIn: signIn(command.id, email: command.email ?? "", password: command.password ?? "")
        case .request: request(command.id, resource: command.resource ?? "")
        case .signOut: signOut(command.id)
        case .switchAccount: switchAccount(command.id, email: command.email ?? "", password: command.password ?? "")
        case .unlock:
            if let launch = blockedRestore {
                blockedRestore = nil
                readStoredSession(for: launch)
            }
            finish(command.id)
        case .background, .foreground, .backgroundRefresh, .lock, .online, .offline:
            finish(command.id)
        }
    }

    private func launch(_ command: String) {
        state = "restoring"
        generation = 1
        (shownState, shownGeneration) = ("restoring", 1)
        restoringLaunch = command
        emit(.transition(TransitionEvent(transition: nil, from: nil, to: "restoring", account: nil, generation: 1,
                                         reason: "launch")))
        if defects.contains(.keepsSessionAcrossLaunches), let remembered = configuration.memory.session.withLock({ $0 }) {
            return validate(remembered, for: command)
        }
        readStoredSession(for: command)
    }

    private func readStoredSession(for command: String) {
        effect(.restoreRead(command: command)) {
            .storage(id: $0, operation: .get, key: "session", value: nil, accessibility: nil)
        }
    }

    private func signIn(_ command: String, email: String, password: String) {
        guard Self.valid(email: email, password: password) || defects.contains(.skipsInputValidation) else {
            finish(command, error: "invalidInput")
            return
        }
        guard state == "signedOut" else {
            finish(command, error: "invalidState")
            return
        }
        move("sign-in-started", to: "signingIn", account: nil, reason: "signIn")
        if defects.contains(.signsInAgainAfterRejection) { configuration.memory.credentials.withLock { $0 = (email, password) } }
        login(command, email: email, password: password)
    }

    private func switchAccount(_ command: String, email: String, password: String) {
        guard Self.valid(email: email, password: password) else {
            finish(command, error: "invalidInput")
            return
        }
        guard state == "authenticated" || state == "refreshing", let previous = session else {
            signIn(command, email: email, password: password)
            return
        }
        generation += 1
        move(state == "refreshing" ? "switch-during-refresh" : "account-switch", to: "signingIn", account: previous.account,
             reason: "switchAccount")
        endSession(failingWaitersWith: "cancelled")
        effect(.switchDelete(command: command, email: email, password: password)) {
            .storage(id: $0, operation: .delete, key: "session", value: nil, accessibility: nil)
        }
    }

    private var refreshOnTheWire: Bool {
        pending.values.contains { if case .refresh = $0 { true } else { false } }
    }

    private func login(_ command: String, email: String, password: String, silently: Bool = false) {
        if configuration.loginWaitsForRefreshOnTheWire, refreshOnTheWire {
            parkedLogins.append((command, email, password, silently))
            return
        }
        effect(silently ? .silentLogin(command: command) : .login(command: command)) {
            .http(id: $0, cause: command, HTTPRequestMessage(
                method: "POST", path: "/auth/login", headers: ["content-type": "application/json"],
                body: ["email": .string(email), "password": .string(password)]))
        }
    }

    private func request(_ command: String, resource: String) {
        switch configuration.sabotage {
        case .stopAnsweringBarriers(let trigger) where trigger == resource:
            silenced = true
        case .helloAgain(let trigger) where trigger == resource:
            emit(contentsOf: start())
        case .resultForUnknownCommand(let trigger) where trigger == resource:
            finish("c999")
        case .abandon(let effect, let trigger) where trigger == resource:
            emit(.abandon(id: effect, reason: "cancelled"))
        default:
            break
        }
        if let session, state == "authenticated" {
            send(AppRequest(command: command, resource: resource, generation: generation, sends: 1, token: session.access))
        } else if session != nil, state == "refreshing" {
            // Waits for the refresh in flight; sent once it settles.
            waiters.append(AppRequest(command: command, resource: resource, generation: generation, sends: 0, token: ""))
        } else if let lingering = lingeringAccess, defects.contains(.usesTokenAfterSignOut) {
            send(AppRequest(command: command, resource: resource, generation: generation, sends: 1, token: lingering))
        } else {
            finish(command, error: "signedOut")
        }
    }

    private func send(_ request: AppRequest) {
        let sent = effect(.resource(request)) {
            .http(id: $0, cause: request.command, HTTPRequestMessage(
                method: "GET", path: "/resources/\(request.resource)",
                headers: ["authorization": "Bearer \(request.token)"]))
        }
        if let seconds = configuration.requestDeadline {
            deadlines[sent] = effect(.requestDeadline(request: sent, command: request.command)) { .sleep(id: $0, seconds: seconds) }
        }
    }

    private func signOut(_ command: String) {
        if state == "restoring", restoringSession != nil { return signOutWhileRestoring(command) }
        guard let previous = session, state == "authenticated" || state == "refreshing" else {
            finish(command, error: "signedOut")
            return
        }
        generation += 1
        move(state == "refreshing" ? "sign-out-during-refresh" : "sign-out", to: "signedOut", account: previous.account,
             reason: "signOut")
        endSession(failingWaitersWith: "signedOut")
        if defects.contains(.usesTokenAfterSignOut) { lingeringAccess = previous.access }
        emit(.ui(UIEvent(kind: .signInPrompt)))
        if defects.contains(.keepsTokensAfterSessionEnds) {
            finish(command)
        } else {
            effect(.signOutDelete(command: command)) {
                .storage(id: $0, operation: .delete, key: "session", value: nil, accessibility: nil)
            }
        }
        effect(.nothing) {
            .http(id: $0, cause: command, HTTPRequestMessage(
                method: "POST", path: "/auth/revoke", headers: ["content-type": "application/json"],
                body: ["refresh_token": .string(previous.refresh)]))
        }
    }

    /// The user signs out before the stored session was validated: the restore ends signed out at once.
    private func signOutWhileRestoring(_ command: String) {
        let stored = restoringSession
        generation += 1
        move("restore-sign-out", to: "signedOut", account: stored?.account, reason: "signOut")
        restoringSession = nil
        if let launch = restoringLaunch { finish(launch, content: ["state": "signedOut"]) }
        emit(.ui(UIEvent(kind: .signInPrompt)))
        effect(.signOutDelete(command: command)) {
            .storage(id: $0, operation: .delete, key: "session", value: nil, accessibility: nil)
        }
        if let stored {
            effect(.nothing) {
                .http(id: $0, cause: command, HTTPRequestMessage(
                    method: "POST", path: "/auth/revoke", headers: ["content-type": "application/json"],
                    body: ["refresh_token": .string(stored.refresh)]))
            }
        }
    }

    // MARK: Replies

    private func resume(_ waiting: Pending, with reply: ReplyBody, id: String) {
        switch waiting {
        case .restoreRead, .restoreValidate, .restoreRefresh:
            // The user signed out while restoring: what the restore asked for no longer matters.
            guard state == "restoring" else { return }
        default:
            break
        }
        switch waiting {
        case .restoreRead(let command):
            restoreRead(command, reply)
        case .restoreValidate(let command, let stored):
            switch Self.status(reply) {
            case 200:
                adopt(stored)
                restoringSession = nil
                move("restore-validated", to: "authenticated", account: stored.account, reason: "sessionValidated")
                finish(command)
            case 401:
                effect(.restoreRefresh(command: command, stored)) { self.refreshCall(id: $0, presenting: stored.refresh, bearer: stored.access) }
            default:
                finish(command, error: Self.errorCode(reply))
            }
        case .restoreRefresh(let command, let stored):
            switch Self.status(reply) {
            case 200:
                guard let fresh = Self.body(reply).flatMap({ Session(tokenResponse: $0, account: stored.account) }) else {
                    return finish(command, error: "serverError")
                }
                persist(fresh, then: .restoreValidated(command: command))
            case 400, 401:
                if defects.contains(.signsInAgainAfterRejection), let kept = configuration.memory.credentials.withLock({ $0 }) {
                    return login(command, email: kept.email, password: kept.password, silently: true)
                }
                restoreFailed(command, deleting: true)
            default:
                finish(command, error: Self.errorCode(reply))
            }
        case .silentLogin(let command):
            guard Self.status(reply) == 200,
                  let fresh = Self.body(reply).flatMap({ Session(tokenResponse: $0, account: nil) }) else {
                return restoreFailed(command, deleting: true)
            }
            persist(fresh, then: .restoreValidated(command: command))
        case .login(let command):
            guard Self.status(reply) == 200,
                  let fresh = Self.body(reply).flatMap({ Session(tokenResponse: $0, account: nil) }) else {
                move("sign-in-failed", to: "signedOut", account: nil, reason: "signInFailed")
                return finish(command, error: Self.status(reply) == 401 ? "invalidCredentials" : Self.errorCode(reply))
            }
            persist(fresh, then: .signInProfile(command: command))
        case .profile(let command, let fresh):
            guard Self.status(reply) == 200 else {
                move("sign-in-failed", to: "signedOut", account: nil, reason: "signInFailed")
                return finish(command, error: Self.errorCode(reply))
            }
            adopt(fresh)
            if !defects.contains(.keepsGenerationOnSignIn) { generation += 1 }
            move("sign-in-succeeded", to: "authenticated", account: fresh.account, reason: "signInSucceeded")
            if defects.contains(.logsToken) {
                emit(.log(level: "debug", message: "signed in; access token \(fresh.access)"))
            }
            if defects.contains(.logsTokenPrefix) {
                emit(.log(level: "debug", message: "signed in; access token starts \(fresh.access.prefix(12))"))
            }
            armRefreshTimer(fresh)
            finish(command, content: ["account": .string(fresh.account)])
        case .resource(let request):
            if let deadline = deadlines.removeValue(forKey: id), pending.removeValue(forKey: deadline) != nil {
                emit(.abandon(id: deadline, reason: "answered"))
            }
            resourceReply(request, reply)
        case .requestDeadline(let request, let command):
            guard pending.removeValue(forKey: request) != nil else { return }
            deadlines[request] = nil
            emit(.abandon(id: request, reason: "timeout"))
            finish(command, error: "timeout")
        case .refresh(let refreshGeneration, let account):
            if let deadline = deadlines.removeValue(forKey: id), configuration.abandonsWhatItGivesUpOn, pending[deadline] != nil {
                pending[deadline] = nil
                emit(.abandon(id: deadline, reason: "answered"))
            }
            refreshReply(generation: refreshGeneration, account: account, reply)
        case .refreshDeadline(let refresh):
            // The refresh was not answered in time: give up on it, as a timeout (retryable).
            guard pending.removeValue(forKey: refresh) != nil else { return }
            deadlines[refresh] = nil
            if configuration.abandonsWhatItGivesUpOn { emit(.abandon(id: refresh, reason: "timeout")) }
            refreshDeferred(reason: "timeout", error: "timeout")
        case .store(let fresh, let remaining, let next):
            persistNext(fresh, remaining, then: next)
        case .signOutDelete(let command):
            finish(command)
        case .switchDelete(let command, let email, let password):
            login(command, email: email, password: password)
        case .refreshTimer(let access):
            if let session, session.access == access, state == "authenticated", !refreshInFlight { startRefresh(session) }
        case .nothing:
            break
        }
    }

    private func restoreRead(_ command: String, _ reply: ReplyBody) {
        switch reply {
        case .value(let text?):
            guard let stored = Session(stored: text) else { return restoreFailed(command, deleting: true) }
            if defects.contains(.trustsStoredToken) {
                adopt(stored)
                move("restore-validated", to: "authenticated", account: stored.account, reason: "sessionValidated")
                return finish(command)
            }
            validate(stored, for: command)
        case .error(let info) where info.code == "locked":
            if defects.contains(.signsOutWhenLocked) { return restoreFailed(command, deleting: false) }
            // Stays restoring until the device is unlocked.
            blockedRestore = command
        default:
            restoreFailed(command, deleting: false)
        }
    }

    private func validate(_ stored: Session, for command: String) {
        restoringSession = stored
        if configuration.refreshesAtLaunch {
            effect(.restoreRefresh(command: command, stored)) { self.refreshCall(id: $0, presenting: stored.refresh, bearer: stored.access) }
            return
        }
        effect(.restoreValidate(command: command, stored)) {
            .http(id: $0, cause: command, HTTPRequestMessage(
                method: "GET", path: "/me", headers: ["authorization": "Bearer \(stored.access)"]))
        }
    }

    private func restoreFailed(_ command: String, deleting: Bool) {
        restoringSession = nil
        generation += 1
        move("restore-failed", to: "signedOut", account: nil, reason: "restoreRejected")
        session = nil
        remember(nil)
        if deleting {
            effect(.nothing) { .storage(id: $0, operation: .delete, key: "session", value: nil, accessibility: nil) }
        }
        emit(.ui(UIEvent(kind: .signInPrompt)))
        finish(command, content: ["state": "signedOut"])
    }

    private func resourceReply(_ request: AppRequest, _ reply: ReplyBody) {
        let stale = request.generation != generation
        if stale && !defects.contains(.showsLateResponseAfterSwitch) {
            return finish(request.command, error: "cancelled")
        }
        switch Self.status(reply) {
        case 200:
            let body = Self.body(reply) ?? .null
            let account = stale ? (body["account"]?.string ?? "") : (session?.account ?? "")
            emit(.ui(UIEvent(kind: .content, resource: request.resource, account: account, generation: generation,
                             contentID: body["contentId"]?.string)))
            finish(request.command, content: ["resource": .string(request.resource), "account": .string(account),
                                              "contentId": body["contentId"] ?? .null])
        case 401:
            unauthorized(request)
        case nil:
            finish(request.command, error: Self.errorCode(reply))
        default:
            finish(request.command, error: "serverError")
        }
    }

    private func unauthorized(_ request: AppRequest) {
        var request = request
        if defects.contains(.ignores401) { return finish(request.command, error: "unauthorized") }
        if request.sends > 1 {
            // A retried request that is refused again: no further refresh or retry.
            if defects.contains(.retriesThreeTimes), request.sends < 4 {
                request.sends += 1
                return send(request)
            }
            return finish(request.command, error: "sessionExpired")
        }
        guard let session, state == "authenticated" || state == "refreshing" else {
            return finish(request.command, error: "signedOut")
        }
        if state == "authenticated", request.token != session.access, !defects.contains(.refreshesOnStale401) {
            // Refused with a token already replaced: retry with the current one, no refresh.
            request.sends += 1
            request.token = session.access
            return send(request)
        }
        if refreshInFlight, defects.contains(.retriesWithoutWaiting) {
            request.sends += 1
            request.token = session.access
            return send(request)
        }
        waiters.append(request)
        if refreshInFlight && !defects.contains(.refreshPerRequest) { return }
        startRefresh(session)
    }

    private func startRefresh(_ session: Session) {
        if state == "authenticated" {
            move("refresh-started", to: "refreshing", account: session.account, reason: "accessTokenRejected")
        }
        refreshInFlight = true
        let presented = defects.contains(.resendsRotatedRefreshToken) ? (firstRefresh ?? session.refresh) : session.refresh
        let refresh = effect(.refresh(generation: generation, account: session.account)) {
            self.refreshCall(id: $0, presenting: presented, bearer: session.access)
        }
        if let seconds = configuration.refreshDeadline {
            deadlines[refresh] = effect(.refreshDeadline(refresh: refresh)) { .sleep(id: $0, seconds: seconds) }
        }
    }

    private func refreshCall(id: String, presenting refresh: String, bearer: String) -> AdapterMessage {
        var headers = ["content-type": "application/json"]
        if defects.contains(.refreshWithAuthorization) { headers["authorization"] = "Bearer \(bearer)" }
        return .http(id: id, cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh", headers: headers,
                                                            body: ["refresh_token": .string(refresh)]))
    }

    private func refreshReply(generation refreshGeneration: Int, account: String, _ reply: ReplyBody) {
        let status = Self.status(reply)
        guard refreshGeneration == generation else {
            // The session ended while the refresh was in flight: its result is discarded.
            if defects.contains(.writesLateRefreshResult), status == 200,
               let late = Self.body(reply).flatMap({ Session(tokenResponse: $0, account: account) }) {
                persist(late, then: .nothing)
            }
            return
        }
        switch status {
        case 200:
            guard let fresh = Self.body(reply).flatMap({ Session(tokenResponse: $0, account: account) }) else {
                return refreshDeferred(reason: "serverError", error: "serverError")
            }
            if defects.contains(.usesTokenBeforeStoring) {
                refreshSucceeded(fresh)
                persist(fresh, then: .nothing)
            } else {
                persist(fresh, then: .refreshSucceeded(generation: generation))
            }
        case 400, 401:
            refreshRejected()
        case 503? where defects.contains(.signsOutOnServerError):
            refreshRejected()
        case nil:
            let code = Self.errorCode(reply)
            refreshDeferred(reason: code, error: code)
        default:
            refreshDeferred(reason: "serverError", error: "serverError")
        }
    }

    private func refreshSucceeded(_ fresh: Session) {
        adopt(fresh)
        refreshInFlight = false
        guard state == "refreshing" else { return }
        move("refresh-succeeded", to: "authenticated", account: fresh.account, reason: "refreshSucceeded")
        armRefreshTimer(fresh)
        let retrying = waiters
        waiters = []
        for var request in retrying {
            request.sends += 1
            request.token = fresh.access
            send(request)
        }
    }

    private func armRefreshTimer(_ fresh: Session) {
        guard let seconds = configuration.refreshTimer else { return }
        effect(.refreshTimer(access: fresh.access)) { .sleep(id: $0, seconds: seconds) }
    }

    private func refreshRejected() {
        guard state == "refreshing" else { return }
        if !defects.contains(.keepsGenerationOnRejection) { generation += 1 }
        move("refresh-rejected", to: "signedOut", account: session?.account, reason: "invalidGrant")
        let failed = waiters.count
        endSession(failingWaitersWith: "sessionEnded")
        if !defects.contains(.keepsTokensAfterSessionEnds) {
            effect(.nothing) { .storage(id: $0, operation: .delete, key: "session", value: nil, accessibility: nil) }
        }
        let prompts = defects.contains(.promptPerFailedRequest) ? max(1, failed) : 1
        for _ in 0..<prompts { emit(.ui(UIEvent(kind: .signInPrompt))) }
    }

    private func refreshDeferred(reason: String, error code: String) {
        refreshInFlight = false
        guard state == "refreshing" else { return }
        move("refresh-deferred", to: "authenticated", account: session?.account, reason: reason)
        let failed = waiters
        waiters = []
        for request in failed { finish(request.command, error: code, definite: code != "timeout") }
    }

    /// Forgets the session: tokens, the refresh in flight, and every waiting request.
    private func endSession(failingWaitersWith code: String) {
        session = nil
        remember(nil)
        firstRefresh = nil
        refreshInFlight = false
        let failed = waiters
        waiters = []
        for request in failed { finish(request.command, error: code) }
    }

    private func adopt(_ fresh: Session) {
        if session?.account != fresh.account || firstRefresh == nil { firstRefresh = fresh.refresh }
        session = fresh
        remember(fresh)
    }

    private func remember(_ session: Session?) {
        if defects.contains(.keepsSessionAcrossLaunches) { configuration.memory.session.withLock { $0 = session } }
    }

    // MARK: Persistence

    private func persist(_ fresh: Session, then next: AfterStore) {
        let accessibility: Accessibility = defects.contains(.storesWhenUnlocked) ? .whenUnlocked : .afterFirstUnlock
        var writes: [Write]
        if defects.contains(.splitsPair) {
            writes = [
                .secure(key: "session.access", value: JSONValue.object(["access_token": .string(fresh.access),
                                                                        "account": .string(fresh.account)]).jsonText,
                        accessibility: accessibility),
                .secure(key: "session.refresh", value: JSONValue.object(["refresh_token": .string(fresh.refresh),
                                                                         "account": .string(fresh.account)]).jsonText,
                        accessibility: accessibility),
            ]
        } else {
            writes = [.secure(key: "session", value: fresh.stored, accessibility: accessibility)]
        }
        if defects.contains(.pairInPreferences) { writes.append(.preferences(key: "session", value: fresh.stored)) }
        persistNext(fresh, writes, then: next)
    }

    private func persistNext(_ fresh: Session, _ writes: [Write], then next: AfterStore) {
        guard let write = writes.first else { return stored(fresh, then: next) }
        let remaining = Array(writes.dropFirst())
        effect(.store(fresh, remaining: remaining, then: next)) { id in
            switch write {
            case .secure(let key, let value, let accessibility):
                .storage(id: id, operation: .set, key: key, value: value, accessibility: accessibility)
            case .preferences(let key, let value):
                .preferences(id: id, operation: .set, key: key, value: value)
            }
        }
    }

    private func stored(_ fresh: Session, then next: AfterStore) {
        switch next {
        case .restoreValidated(let command):
            adopt(fresh)
            restoringSession = nil
            move("restore-validated", to: "authenticated", account: fresh.account, reason: "sessionValidated")
            finish(command)
        case .signInProfile(let command):
            effect(.profile(command: command, fresh)) {
                .http(id: $0, cause: command, HTTPRequestMessage(
                    method: "GET", path: "/me", headers: ["authorization": "Bearer \(fresh.access)"]))
            }
        case .refreshSucceeded(let storedGeneration):
            guard storedGeneration == generation else { return }
            refreshSucceeded(fresh)
        case .nothing:
            break
        }
    }

    // MARK: Output

    private func emit(_ message: AdapterMessage) { outbox.append(message) }
    private func emit(contentsOf messages: [AdapterMessage]) { outbox.append(contentsOf: messages) }

    @discardableResult
    private func effect(_ waiting: Pending, _ make: (String) -> AdapterMessage) -> String {
        effectCounter += 1
        let id = "e\(effectCounter)"
        pending[id] = waiting
        emit(make(id))
        return id
    }

    private func move(_ transition: String, to target: String, account: String?, reason: String) {
        state = target
        let reported = transition == "sign-in-succeeded" && defects.contains(.signInReachesRefreshing) ? "refreshing" : target
        // An unshown state, and the way back from it when nothing else changed, stay the client's own.
        if configuration.reporting.unshown.contains(transition) || (reported == shownState && generation == shownGeneration) { return }
        emit(.transition(TransitionEvent(transition: configuration.reporting.names[transition] ?? transition, from: shownState,
                                         to: reported, account: account, generation: generation, reason: reason)))
        (shownState, shownGeneration) = (reported, generation)
    }

    private func finish(_ command: String, content: JSONValue = .null) {
        if command == restoringLaunch { restoringLaunch = nil }
        emit(.result(CommandResult(id: command, content: content)))
    }

    private func finish(_ command: String, error code: String, definite: Bool = true) {
        if command == restoringLaunch { restoringLaunch = nil }
        emit(.result(CommandResult(id: command, error: ErrorInfo(code: code, message: "failed: \(code)", definite: definite))))
    }

    // MARK: Helpers

    private static func valid(email: String, password: String) -> Bool {
        email.contains("@") && password.count >= 8
    }

    private static func status(_ reply: ReplyBody) -> Int? {
        if case .response(let response) = reply { return response.status }
        return nil
    }

    private static func body(_ reply: ReplyBody) -> JSONValue? {
        if case .response(let response) = reply { return response.body }
        return nil
    }

    private static func errorCode(_ reply: ReplyBody) -> String {
        switch reply {
        case .failure(let info), .error(let info): info.code
        case .response(let response): response.status >= 500 ? "serverError" : "unexpectedStatus"
        default: "unexpectedReply"
        }
    }
}
