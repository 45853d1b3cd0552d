import AdapterKit
import Foundation

/// An error the app shows; `code` goes into the command's `result`.
struct AppError: Error {
    var code: String
    var message: String
    var definite = true
}

/// The session layer as an iOS team typically writes it: state in one object, tokens in the Keychain (here:
/// `storage` effects), a business cache in UserDefaults (`preferences`), URLSession with a 401 interceptor and
/// a single-flight refresh actor (001's pattern: the new pair stored before the refresh resolves, only
/// invalid_grant signs out). What the pattern alone leaves out is listed in expected.yaml.
@ClientActor final class SessionClient {
    private var state = "restoring"
    private var generation = 1
    private var tokens: Tokens?
    private var cached: Set<String> = []
    private var api: APIClient!
    private var restoring: Task<Content, any Error>?
    private var refresher: TokenRefresher!
    private var signalWaiters: [CheckedContinuation<Void, Never>] = []
    private let effects: ClientEffects
    private let store: TokenStore
    private let baseURL: URL
    private let requestTimeout: Double?

    /// `requestTimeout` (`--request-timeout SECONDS`): a deadline on every request, on the runner's virtual clock;
    /// nil: none but URLSession's own (real time).
    nonisolated init(effects: ClientEffects, baseURL: URL, requestTimeout: Double?) {
        self.effects = effects
        store = TokenStore(effects: effects)
        self.baseURL = baseURL
        self.requestTimeout = requestTimeout
    }

    /// The networking layer, made on the client's actor before the first command.
    private func connect() {
        guard api == nil else { return }
        refresher = TokenRefresher { [unowned self] in try await self.refreshSession() }
        api = APIClient(effects: effects, baseURL: baseURL, refresher: refresher, requestTimeout: requestTimeout) { [unowned self] in self.tokens?.accessToken }
    }

    func perform(_ command: AppCommand) async -> CommandResult {
        connect()
        do {
            let content = try await run(command)
            return CommandResult(id: command.id, content: content.map { .object($0.mapValues { $0.map { .string($0) } ?? .null }) } ?? .null)
        } catch let error as AppError {
            return CommandResult(id: command.id, error: ErrorInfo(code: error.code, message: error.message, definite: error.definite))
        } catch {
            return CommandResult(id: command.id, error: ErrorInfo(code: "internalError", message: "failed", definite: true))
        }
    }

    /// A result's content: a few string fields, or none.
    typealias Content = [String: String?]?

    private func run(_ command: AppCommand) async throws -> Content {
        switch command.kind {
        case .launch:
            let task = Task(executorPreference: effects.taskExecutor) { try await self.restore() }
            restoring = task
            return try await task.value
        case .signIn:
            return try await signIn(email: command.email ?? "", password: command.password ?? "")
        case .switchAccount:
            return try await switchAccount(email: command.email ?? "", password: command.password ?? "")
        case .signOut:
            try await signOut()
            return nil
        case .request:
            return try await fetch(command.resource ?? "")
        case .backgroundRefresh:
            guard state == "authenticated" || state == "refreshing" else { return ["outcome": "notSignedIn"] }
            _ = try await refresher.refresh()
            return ["outcome": "refreshed"]
        case .online, .unlock, .foreground:
            let waiters = signalWaiters
            signalWaiters = []
            waiters.forEach { $0.resume() }
            return nil
        case .background, .lock, .offline:
            return nil
        }
    }

    // MARK: - 001's refresh: run once at a time by TokenRefresher

    private func refreshSession() async throws -> Tokens {
        if state == "authenticated" { transition("refresh-started", reason: "accessTokenRejected") }
        do {
            guard let current = try await store.read(), let account = tokens?.account else {
                throw RefreshRejected()
            }
            let data: Data
            do {
                data = try await api.post("/auth/refresh", json: ["grant_type": "refresh_token", "refresh_token": current.refreshToken])
            } catch APIError.status(400, let code) where code == "invalid_grant" {
                throw RefreshRejected()
            }
            let body = try JSONDecoder().decode(TokenResponse.self, from: data)
            let next = Tokens(accessToken: body.access_token, refreshToken: body.refresh_token ?? current.refreshToken, account: account)
            try await store.write(next) // persist before anyone uses it
            tokens = next
            if state == "refreshing" { transition("refresh-succeeded", reason: "tokensRotated") }
            return next
        } catch is RefreshRejected {
            if state == "refreshing" { await endSession("refresh-rejected", reason: "invalidGrant", prompt: true) }
            throw AppError(code: "sessionEnded", message: "the server rejected the session")
        } catch {
            // Keep the session: a timeout, 5xx or offline is not a rejection.
            if state == "refreshing" { transition("refresh-deferred", reason: "retryableFailure") }
            throw AppError(code: "refreshUnavailable", message: "refresh failed", definite: false)
        }
    }

    // MARK: - The app around it

    private func restore() async throws -> Content {
        cached = []
        effects.transition(TransitionEvent(transition: nil, from: nil, to: "restoring", account: nil, generation: generation, reason: "launch"))
        var stored: Tokens?
        while true {
            do {
                stored = try await store.read()
                break
            } catch {
                await untilSignal() // locked: wait for the unlock
            }
        }
        guard let stored else {
            await endSession("restore-failed", reason: "noStoredSession", prompt: true)
            return ["state": state]
        }
        tokens = stored
        while true {
            do {
                _ = try await api.get("/me") // a 401 refreshes through the interceptor
                transition("restore-validated", reason: "storedSessionValidated")
                return ["state": state]
            } catch let error as AppError where error.code == "sessionEnded" {
                await endSession("restore-failed", reason: "storedSessionRejected", prompt: true)
                return ["state": state]
            } catch {
                await untilSignal() // offline or the server is down: stay restoring, try again later
            }
        }
    }

    private func signIn(email: String, password: String) async throws -> Content {
        guard email.contains("@") else { throw AppError(code: "invalidInput", message: "Invalid email format") }
        guard password.count >= 8 else { throw AppError(code: "invalidInput", message: "Password must be at least 8 characters") }
        guard state == "signedOut" else { throw AppError(code: "alreadySignedIn", message: "already signed in") }
        transition("sign-in-started", reason: "userSignIn")
        return try await completeSignIn(email: email, password: password)
    }

    private func completeSignIn(email: String, password: String) async throws -> Content {
        let data: Data
        do {
            data = try await api.post("/auth/login", json: ["email": email, "password": password])
        } catch let error as APIError {
            transition("sign-in-failed", reason: "invalidCredentials")
            if case .transport = error { throw AppError(code: "transportFailure", message: "sign-in failed") }
            throw AppError(code: "invalidCredentials", message: "sign-in failed")
        }
        let body = try JSONDecoder().decode(TokenResponse.self, from: data)
        let next = Tokens(accessToken: body.access_token, refreshToken: body.refresh_token ?? "", account: body.account_id ?? "")
        try await store.write(next)
        tokens = next
        _ = try? await api.get("/me")
        transition("sign-in-succeeded", reason: "credentialsAccepted")
        return ["account": next.account]
    }

    private func switchAccount(email: String, password: String) async throws -> Content {
        switch state {
        case "authenticated":
            await revokeRemotely(tokens)
            await endSession("account-switch", reason: "switchingAccount", prompt: false) // straight to signingIn
        case "refreshing":
            await revokeRemotely(tokens)
            await endSession("sign-out-during-refresh", reason: "switchingAccount", prompt: false)
            transition("sign-in-started", reason: "switchingAccount")
        default:
            return try await signIn(email: email, password: password)
        }
        return try await completeSignIn(email: email, password: password)
    }

    private func signOut() async throws {
        guard state == "authenticated" || state == "refreshing" else { return }
        let ended = tokens
        await endSession(state == "authenticated" ? "sign-out" : "sign-out-during-refresh", reason: "userSignedOut", prompt: true)
        await revokeRemotely(ended)
    }

    private func revokeRemotely(_ tokens: Tokens?) async {
        guard let tokens else { return }
        do {
            _ = try await api.post("/auth/revoke", json: ["token": tokens.refreshToken, "token_type_hint": "refresh_token"])
        } catch {
            effects.log("notice", "revocation failed; not retried")
        }
    }

    private func fetch(_ resource: String) async throws -> Content {
        if state == "restoring", let restoring { _ = try? await restoring.value } // the splash screen waits
        guard tokens != nil, state == "authenticated" || state == "refreshing" else {
            throw AppError(code: "notAuthenticated", message: "no session")
        }
        let data: Data
        do {
            data = try await api.get("/resources/\(resource)")
        } catch let error as APIError {
            switch error {
            case .status(401, _): throw AppError(code: "unauthorized", message: "refused after one retry")
            case .status: throw AppError(code: "serverError", message: "request failed")
            case .transport: throw AppError(code: "transportFailure", message: "request failed", definite: false)
            }
        }
        let body = try JSONDecoder().decode(ResourceResponse.self, from: data)
        let account = tokens?.account
        effects.show(UIEvent(kind: .content, resource: resource, account: account, generation: generation, contentID: body.contentId))
        if let account {
            cached.insert(resource)
            await effects.preferenceSet("cache/\(account)/\(resource)", String(decoding: data, as: UTF8.self))
        }
        return ["resource": resource, "account": account, "contentId": body.contentId]
    }

    // MARK: - State

    private static let transitions: [String: (from: String, to: String, increments: Bool)] = [
        "restore-validated": ("restoring", "authenticated", false),
        "restore-failed": ("restoring", "signedOut", true),
        "refresh-started": ("authenticated", "refreshing", false),
        "refresh-succeeded": ("refreshing", "authenticated", false),
        "refresh-deferred": ("refreshing", "authenticated", false),
        "refresh-rejected": ("refreshing", "signedOut", true),
        "sign-out": ("authenticated", "signedOut", true),
        "sign-out-during-refresh": ("refreshing", "signedOut", true),
        "sign-in-started": ("signedOut", "signingIn", false),
        "sign-in-succeeded": ("signingIn", "authenticated", true),
        "sign-in-failed": ("signingIn", "signedOut", false),
        "account-switch": ("authenticated", "signingIn", true),
    ]

    private func transition(_ id: String, reason: String) {
        guard let (from, to, increments) = Self.transitions[id] else { return }
        if increments { generation += 1 }
        state = to
        effects.transition(TransitionEvent(transition: id, from: from, to: to, account: tokens?.account, generation: generation, reason: reason))
        effects.log("info", "transition \(id) \(from)->\(to)")
    }

    private func endSession(_ id: String, reason: String, prompt: Bool) async {
        let account = tokens?.account
        transition(id, reason: reason)
        tokens = nil
        await store.clear()
        if let account {
            for resource in cached.sorted() {
                await effects.preferenceDelete("cache/\(account)/\(resource)")
            }
            cached = []
        }
        if prompt { effects.show(UIEvent(kind: .signInPrompt)) }
    }

    private func untilSignal() async {
        await withCheckedContinuation { signalWaiters.append($0) }
    }
}

private struct TokenResponse: Decodable {
    var access_token: String
    var refresh_token: String?
    var account_id: String?
}

private struct ResourceResponse: Decodable {
    var contentId: String
}
