public import AdapterKit
public import ConformanceProtocol
import JSONCore

// The Android app of Specs/sources/003_a7334a1b43f9a998.txt: LoginUseCase, logout(), the AppViewModel's
// isAuthenticated, over the SecureTokenStore and an OkHttpClient with the TokenAuthenticator. The app shell
// around them (screens, repository, Retrofit service) is not in 003 and does the plainest thing.

extension NaiveAndroid {
    enum AppError: Error, Sendable {
        case invalidInput(String)
    }

    struct User: Sendable {
        let id: String
    }

    /// Not in 003: login saves the pair; the profile and resources go through the authenticated OkHttpClient.
    final class AuthRepository: Sendable {
        private let authApi: AuthApi
        private let apiClient: OkHttpClient
        private let tokenStore: any TokenStore
        private let reporter: SessionReporter

        init(authApi: AuthApi, apiClient: OkHttpClient, tokenStore: any TokenStore, reporter: SessionReporter) {
            self.authApi = authApi
            self.apiClient = apiClient
            self.tokenStore = tokenStore
            self.reporter = reporter
        }

        func login(_ email: String, _ password: String) async -> Result<TokenPair, any Error> {
            reporter.signInStarted()
            do {
                let pair = try await authApi.login(email: email, password: password)
                await tokenStore.save(accessToken: pair.accessToken, refreshToken: pair.refreshToken)
                return .success(pair)
            } catch {
                return .failure(error)
            }
        }

        func getCurrentUser() async -> Result<User, any Error> {
            do {
                let response = try await apiClient.execute(Request(method: "GET", path: "/me"))
                guard (200..<300).contains(response.code) else { throw HttpException(code: response.code) }
                return .success(User(id: response.body["account_id"]?.string ?? ""))
            } catch {
                return .failure(error)
            }
        }
    }

    // Android - LoginUseCase
    final class LoginUseCase: Sendable {
        private let authRepository: AuthRepository

        init(authRepository: AuthRepository) {
            self.authRepository = authRepository
        }

        func invoke(email: String, password: String) async -> Result<User, any Error> {
            // Validate inputs
            if !email.contains("@") {
                return .failure(AppError.invalidInput("Invalid email format"))
            }

            if password.count < 8 {
                return .failure(AppError.invalidInput("Password must be at least 8 characters"))
            }

            // authRepository.login(email, password).mapCatching { authRepository.getCurrentUser().getOrThrow() }
            switch await authRepository.login(email, password) {
            case .failure(let error): return .failure(error)
            case .success: return await authRepository.getCurrentUser()
            }
        }
    }
}

/// The Android app of 003 as a hosted client. Its AppViewModel evaluates `isAuthenticated` once, when it is
/// created at launch (`flow { emit(tokenStore.getAccessToken() != null) }.stateIn(viewModelScope, Eagerly,
/// false)`), and nothing updates it afterwards.
public final class NaiveAndroidClient: HostedClient {
    public static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "naive-android (003 TokenAuthenticator)", version: "003", language: "Kotlin (ported)",
                                           platform: hostPlatform),
        capabilities: [])

    private let reporter: SessionReporter
    private let tokenStore: any NaiveAndroid.TokenStore
    private let apiClient: NaiveAndroid.OkHttpClient
    private let loginUseCase: NaiveAndroid.LoginUseCase

    public init(effects: ClientEffects) {
        reporter = SessionReporter(effects: effects)
        let store = NaiveAndroid.SecureTokenStore(context: effects)
        tokenStore = ReportingTokenStore(store: store, reporter: reporter)
        let authApi = NaiveAndroid.AuthApi(client: NaiveAndroid.OkHttpClient(network: effects), reporter: reporter)
        apiClient = NaiveAndroid.OkHttpClient(
            network: effects,
            interceptors: [NaiveAndroid.AuthorizationInterceptor(tokenStore: tokenStore)],
            authenticator: NaiveAndroid.TokenAuthenticator(tokenStore: tokenStore, authApi: authApi))
        loginUseCase = NaiveAndroid.LoginUseCase(authRepository: NaiveAndroid.AuthRepository(
            authApi: authApi, apiClient: apiClient, tokenStore: tokenStore, reporter: reporter))
    }

    // Android
    // suspend fun logout() {
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
            // val isAuthenticated: StateFlow<Boolean> = flow { emit(tokenStore.getAccessToken() != null) }.stateIn(...)
            let isAuthenticated = await tokenStore.getAccessToken() != nil
            reporter.restored(authenticated: isAuthenticated)
            if !isAuthenticated { reporter.signInPrompt() }
            return CommandResult(id: command.id)
        case .signIn:
            return await signIn(command)
        case .switchAccount:
            // The account menu's "switch": logout() without the navigation (the sign-in form is already up).
            reporter.switching()
            await logout()
            return await signIn(command)
        case .signOut:
            if reporter.userSignedOut() {
                await logout()
                reporter.signInPrompt() // Navigate to login
            }
            return CommandResult(id: command.id)
        case .request:
            let resource = command.resource ?? ""
            do {
                let response = try await apiClient.execute(NaiveAndroid.Request(method: "GET", path: "/resources/\(resource)"))
                guard (200..<300).contains(response.code) else { throw NaiveAndroid.HttpException(code: response.code) }
                reporter.show(resource: resource, body: response.body)
                return shown(command, resource: resource, account: reporter.currentAccount, body: response.body)
            } catch {
                // The screen shows its error; isAuthenticated never changes, so nothing navigates.
                return failed(command, Self.code(error), "request failed")
            }
        case .background, .foreground, .backgroundRefresh, .lock, .unlock, .online, .offline:
            return CommandResult(id: command.id)
        }
    }

    private func signIn(_ command: AppCommand) async -> CommandResult {
        switch await loginUseCase.invoke(email: command.email ?? "", password: command.password ?? "") {
        case .success(let user):
            reporter.signInFinished(account: user.id)
            return CommandResult(id: command.id, content: ["account": .string(user.id)])
        case .failure(let error):
            reporter.signInFinished(account: nil)
            return failed(command, Self.code(error), "sign-in failed")
        }
    }

    private static func code(_ error: any Error) -> String {
        switch error {
        case NaiveAndroid.AppError.invalidInput: "invalidInput"
        case let error as NaiveAndroid.HttpException: error.code == 401 ? "unauthorized" : error.code >= 500 ? "serverError" : "http\(error.code)"
        case let error as NaiveAndroid.IOException: error.info.code
        default: "failed"
        }
    }

    /// Reporting only: tells the reporter when the app clears its tokens on its own.
    private struct ReportingTokenStore: NaiveAndroid.TokenStore {
        let store: NaiveAndroid.SecureTokenStore
        let reporter: SessionReporter

        func getAccessToken() async -> String? { await store.getAccessToken() }
        func getRefreshToken() async -> String? { await store.getRefreshToken() }
        func save(accessToken: String, refreshToken: String) async { await store.save(accessToken: accessToken, refreshToken: refreshToken) }
        func clear() async {
            reporter.tokensCleared()
            await store.clear()
        }
    }
}
