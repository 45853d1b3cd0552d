public import AdapterKit
public import ConformanceProtocol
import Foundation
import JSONCore

// The iOS app of Specs/sources/003_a7334a1b43f9a998.txt: LoginUseCase, logout(), AppViewModel.checkAuth(),
// over the KeychainTokenStore and the AuthenticatedAPIClient. The app shell around them (which screen shows
// what, the repository) is not in 003 and does the plainest thing.

extension NaiveIOS {
    struct User: Sendable {
        let id: String
        let email: String
    }

    /// Not in 003: login saves the pair it gets; the profile comes through the authenticated client.
    final class AuthRepository: Sendable {
        private let baseClient: any APIClient
        private let apiClient: AuthenticatedAPIClient
        private let tokenStore: any TokenStore
        private let reporter: SessionReporter

        init(baseClient: any APIClient, apiClient: AuthenticatedAPIClient, tokenStore: any TokenStore, reporter: SessionReporter) {
            self.baseClient = baseClient
            self.apiClient = apiClient
            self.tokenStore = tokenStore
            self.reporter = reporter
        }

        func login(email: String, password: String) async throws -> TokenPair {
            reporter.signInStarted()
            let body: JSONValue
            do {
                body = try await baseClient.request(Endpoint(method: "POST", path: "/auth/login",
                                                             body: ["email": .string(email), "password": .string(password)]))
            } catch APIError.unauthorized {
                throw AppError.invalidCredentials
            }
            guard let access = body["access_token"]?.string, let refresh = body["refresh_token"]?.string else {
                throw APIError.http(status: 200, body: body)
            }
            let pair = TokenPair(accessToken: access, refreshToken: refresh)
            await tokenStore.save(pair)
            return pair
        }

        func getCurrentUser() async throws -> User {
            let body = try await apiClient.request(Endpoint(method: "GET", path: "/me"))
            return User(id: body["account_id"]?.string ?? "", email: body["email"]?.string ?? "")
        }
    }

    // iOS - LoginUseCase
    final class LoginUseCase: Sendable {
        private let authRepository: AuthRepository

        init(authRepository: AuthRepository) {
            self.authRepository = authRepository
        }

        func execute(email: String, password: String) async throws -> User {
            // Validate inputs
            guard email.contains("@") else {
                throw AppError.invalidInput("Invalid email format")
            }

            guard password.count >= 8 else {
                throw AppError.invalidInput("Password must be at least 8 characters")
            }

            // Login and get tokens
            _ = try await authRepository.login(email: email, password: password)

            // Fetch user profile
            let user = try await authRepository.getCurrentUser()

            return user
        }
    }

    // Adapted: `@MainActor final class AppViewModel: ObservableObject`; the host runs every task on one serial
    // executor, so a lock stands in for the main actor.
    final class AppViewModel: @unchecked Sendable {
        // @unchecked: `isAuthenticated` is only touched with `lock` held.
        private let lock = NSLock()
        private var authenticated = false
        private let tokenStore: any TokenStore
        /// Not in 003: the root view, which shows the sign-in screen when `isAuthenticated` turns false.
        private let onSignedOut: @Sendable () -> Void

        init(tokenStore: any TokenStore, onSignedOut: @escaping @Sendable () -> Void) {
            self.tokenStore = tokenStore
            self.onSignedOut = onSignedOut
        }

        // @Published var isAuthenticated = false
        var isAuthenticated: Bool {
            get { lock.withLock { authenticated } }
            set {
                let turnedFalse = lock.withLock {
                    defer { authenticated = newValue }
                    return authenticated && !newValue
                }
                if turnedFalse { onSignedOut() }
            }
        }

        func checkAuth() async {
            isAuthenticated = await tokenStore.accessToken != nil
        }
    }

    /// Reporting only: tells the reporter when the app clears its tokens on its own.
    struct ReportingTokenStore: TokenStore {
        let store: KeychainTokenStore
        let reporter: SessionReporter

        var accessToken: String? { get async { await store.accessToken } }
        var refreshToken: String? { get async { await store.refreshToken } }
        func save(_ pair: TokenPair) async { await store.save(pair) }
        func clear() async {
            reporter.tokensCleared()
            await store.clear()
        }
    }
}

/// The iOS app of 003 as a hosted client. It declares background refresh: its BGAppRefreshTask refreshes the
/// tokens through the coordinator (001: "a background task refreshing while the phone is locked").
public final class NaiveIOSClient: HostedClient {
    public static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "naive-ios (003 TokenRefreshCoordinator)", version: "003", language: "Swift",
                                           platform: hostPlatform),
        capabilities: ["background-refresh"])

    private let reporter: SessionReporter
    private let tokenStore: any NaiveIOS.TokenStore
    private let authService: NaiveIOS.AuthService
    private let apiClient: NaiveIOS.AuthenticatedAPIClient
    private let appViewModel: NaiveIOS.AppViewModel
    private let loginUseCase: NaiveIOS.LoginUseCase

    public init(effects: ClientEffects) {
        reporter = SessionReporter(effects: effects)
        tokenStore = NaiveIOS.ReportingTokenStore(store: NaiveIOS.KeychainTokenStore(keychain: effects), reporter: reporter)
        let baseClient = NaiveIOS.URLSessionAPIClient(session: effects)
        authService = NaiveIOS.AuthService(baseClient: baseClient, reporter: reporter)
        apiClient = NaiveIOS.AuthenticatedAPIClient(baseClient: baseClient, tokenStore: tokenStore, authService: authService,
                                                   executor: effects.taskExecutor)
        let reporter = reporter
        appViewModel = NaiveIOS.AppViewModel(tokenStore: tokenStore, onSignedOut: { reporter.signInPrompt() })
        loginUseCase = NaiveIOS.LoginUseCase(authRepository: NaiveIOS.AuthRepository(
            baseClient: baseClient, apiClient: apiClient, tokenStore: tokenStore, reporter: reporter))
    }

    // iOS
    // func logout() async {
    //     tokenStore.clear()
    //     // Navigate to login
    // }
    private func logout() async {
        await tokenStore.clear()
    }

    public func perform(_ command: AppCommand) async -> CommandResult {
        switch command.kind {
        case .launch:
            reporter.launched()
            await appViewModel.checkAuth()
            reporter.restored(authenticated: appViewModel.isAuthenticated)
            if !appViewModel.isAuthenticated { reporter.signInPrompt() }
            return CommandResult(id: command.id)
        case .signIn:
            return await signIn(command)
        case .switchAccount:
            // The account menu's "switch": logout() without the navigation (the sign-in form is already up),
            // then the login use case.
            reporter.switching()
            await logout()
            return await signIn(command)
        case .signOut:
            if reporter.userSignedOut() {
                await logout()
                appViewModel.isAuthenticated = false // Navigate to login
            }
            return CommandResult(id: command.id)
        case .request:
            let resource = command.resource ?? ""
            do {
                let body = try await apiClient.request(NaiveIOS.Endpoint(method: "GET", path: "/resources/\(resource)"))
                reporter.show(resource: resource, body: body)
                return shown(command, resource: resource, account: reporter.currentAccount, body: body)
            } catch NaiveIOS.AppError.unauthorized {
                // The screen re-checks the session; the root view switches to sign-in when it turns false.
                await appViewModel.checkAuth()
                return failed(command, "unauthorized", "the session is no longer authorized")
            } catch {
                return failed(command, Self.code(error), "request failed")
            }
        case .backgroundRefresh:
            do {
                try await apiClient.refreshCoordinator.refreshIfNeeded(tokenStore: tokenStore, authService: authService)
                return CommandResult(id: command.id)
            } catch {
                return failed(command, Self.code(error), "background refresh failed")
            }
        case .background, .foreground, .lock, .unlock, .online, .offline:
            return CommandResult(id: command.id)
        }
    }

    private func signIn(_ command: AppCommand) async -> CommandResult {
        do {
            let user = try await loginUseCase.execute(email: command.email ?? "", password: command.password ?? "")
            appViewModel.isAuthenticated = true
            reporter.signInFinished(account: user.id)
            return CommandResult(id: command.id, content: ["account": .string(user.id)])
        } catch {
            reporter.signInFinished(account: nil)
            return failed(command, Self.code(error), "sign-in failed")
        }
    }

    private static func code(_ error: any Error) -> String {
        switch error {
        case NaiveIOS.AppError.invalidInput: "invalidInput"
        case NaiveIOS.AppError.invalidCredentials: "invalidCredentials"
        case NaiveIOS.AppError.unauthorized, NaiveIOS.APIError.unauthorized: "unauthorized"
        case NaiveIOS.APIError.transport(let info): info.code
        case NaiveIOS.APIError.http(let status, _): status >= 500 ? "serverError" : "http\(status)"
        default: "failed"
        }
    }
}
