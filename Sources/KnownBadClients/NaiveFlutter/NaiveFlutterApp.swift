public import AdapterKit
public import ConformanceProtocol
import Foundation
import JSONCore

// The Flutter app of Specs/sources/003_a7334a1b43f9a998.txt: LoginUseCase, logout(), the AppBloc's
// CheckAuthStatus, over the SecureTokenStore and a Dio with the AuthInterceptor. The app shell around them
// (screens, repository) is not in 003 and does the plainest thing.

extension NaiveFlutter {
    struct InvalidInput: Error, Sendable {
        let message: String
    }

    struct User: Sendable {
        let id: String
    }

    /// Not in 003: login through the AuthApi, then the pair is saved; the profile goes through the app's Dio.
    final class AuthRepository: Sendable {
        private let authApi: AuthApi
        private let dio: Dio
        private let tokenStore: any TokenStore
        private let reporter: SessionReporter

        init(authApi: AuthApi, dio: Dio, tokenStore: any TokenStore, reporter: SessionReporter) {
            self.authApi = authApi
            self.dio = dio
            self.tokenStore = tokenStore
            self.reporter = reporter
        }

        func login(_ email: String, _ password: String) async throws {
            reporter.signInStarted()
            let pair = try await authApi.login(email, password)
            await tokenStore.save(pair)
        }

        func getCurrentUser() async throws -> User {
            let response = try await dio.get("/me")
            return User(id: response.data["account_id"]?.string ?? "")
        }
    }

    // Flutter - LoginUseCase
    final class LoginUseCase: Sendable {
        private let _repository: AuthRepository

        init(_ repository: AuthRepository) {
            _repository = repository
        }

        func call(_ email: String, _ password: String) async throws -> User {
            // Validate inputs
            if !email.contains("@") {
                throw InvalidInput(message: "Invalid email format")
            }

            if password.count < 8 {
                throw InvalidInput(message: "Password must be at least 8 characters")
            }

            // Login and get tokens
            try await _repository.login(email, password)

            // Fetch user profile
            return try await _repository.getCurrentUser()
        }
    }

    enum AppState: Sendable, Equatable {
        case appAuthenticated
        case appUnauthenticated
    }

    // Flutter - AppBloc. Adapted: a Bloc that emits only on a change of state, as Bloc does with equal states.
    final class AppBloc: @unchecked Sendable {
        // @unchecked: `state` is only touched with `lock` held.
        private let _tokenStore: any TokenStore
        private let lock = NSLock()
        private var state: AppState = .appUnauthenticated

        init(tokenStore: any TokenStore) {
            _tokenStore = tokenStore
        }

        var current: AppState { lock.withLock { state } }

        /// `add(CheckAuthStatus())`, handled by `_onCheckAuthStatus`. Returns the state emitted, if it changed.
        func checkAuthStatus() -> AppState? {
            let isAuthenticated = _tokenStore.accessToken != nil

            if isAuthenticated {
                return emit(.appAuthenticated)
            } else {
                return emit(.appUnauthenticated)
            }
        }

        /// Not in 003: what the screens do after a sign-in or a sign-out.
        func emit(_ next: AppState) -> AppState? {
            lock.withLock {
                guard next != state else { return nil }
                state = next
                return next
            }
        }
    }

    /// Reporting only: tells the reporter when the app clears its tokens on its own.
    struct ReportingTokenStore: TokenStore {
        let store: SecureTokenStore
        let reporter: SessionReporter

        var accessToken: String? { store.accessToken }
        var refreshToken: String? { store.refreshToken }
        func save(_ pair: TokenPair) async { await store.save(pair) }
        func clear() async {
            reporter.tokensCleared()
            await store.clear()
        }
    }
}

/// The Flutter app of 003 as a hosted client. A screen whose request fails with a 401 adds CheckAuthStatus
/// to the AppBloc; the root widget shows the sign-in screen when the Bloc emits AppUnauthenticated.
public final class NaiveFlutterClient: HostedClient {
    public static let identity = HostedClientIdentity(
        implementation: ImplementationInfo(name: "naive-flutter (003 AuthInterceptor)", version: "003", language: "Dart (ported)",
                                           platform: hostPlatform),
        capabilities: [])

    private let reporter: SessionReporter
    private let store: NaiveFlutter.SecureTokenStore
    private let tokenStore: any NaiveFlutter.TokenStore
    private let dio: NaiveFlutter.Dio
    private let bloc: NaiveFlutter.AppBloc
    private let loginUseCase: NaiveFlutter.LoginUseCase

    public init(effects: ClientEffects) {
        reporter = SessionReporter(effects: effects)
        store = NaiveFlutter.SecureTokenStore(NaiveFlutter.FlutterSecureStorage(channel: effects))
        tokenStore = NaiveFlutter.ReportingTokenStore(store: store, reporter: reporter)
        let authApi = NaiveFlutter.AuthApi(dio: NaiveFlutter.Dio(adapter: effects), reporter: reporter)
        dio = NaiveFlutter.Dio(adapter: effects)
        dio.interceptors.append(NaiveFlutter.AuthInterceptor(dio, tokenStore, authApi, executor: effects.taskExecutor))
        bloc = NaiveFlutter.AppBloc(tokenStore: tokenStore)
        loginUseCase = NaiveFlutter.LoginUseCase(NaiveFlutter.AuthRepository(authApi: authApi, dio: dio, tokenStore: tokenStore,
                                                                             reporter: reporter))
    }

    // Flutter
    // Future<void> logout() async {
    //   await tokenStore.clear();
    //   // Navigate to login
    // }
    private func logout() async {
        await tokenStore.clear()
    }

    public func perform(_ command: AppCommand) async -> CommandResult {
        switch command.kind {
        case .launch:
            reporter.launched()
            // main(): await tokenStore.initialize(); then the AppBloc gets CheckAuthStatus.
            await store.initialize()
            let authenticated = bloc.checkAuthStatus() == .appAuthenticated
            reporter.restored(authenticated: authenticated)
            if !authenticated { reporter.signInPrompt() }
            return CommandResult(id: command.id)
        case .signIn:
            return await signIn(command)
        case .switchAccount:
            // The account menu's "switch": logout() without the navigation (the sign-in form is already up).
            reporter.switching()
            await logout()
            _ = bloc.emit(.appUnauthenticated)
            return await signIn(command)
        case .signOut:
            if reporter.userSignedOut() {
                await logout()
                _ = bloc.emit(.appUnauthenticated)
                reporter.signInPrompt() // Navigate to login
            }
            return CommandResult(id: command.id)
        case .request:
            let resource = command.resource ?? ""
            do {
                let response = try await dio.get("/resources/\(resource)")
                reporter.show(resource: resource, body: response.data)
                return shown(command, resource: resource, account: reporter.currentAccount, body: response.data)
            } catch let error as NaiveFlutter.DioException {
                if error.response?.statusCode == 401, bloc.checkAuthStatus() == .appUnauthenticated {
                    reporter.signInPrompt()
                }
                let code = error.transport?.code ?? error.response.map { $0.statusCode == 401 ? "unauthorized" : "http\($0.statusCode)" } ?? "failed"
                return failed(command, code, "request failed")
            } catch {
                return failed(command, "failed", "request failed")
            }
        case .background, .foreground, .backgroundRefresh, .lock, .unlock, .online, .offline:
            return CommandResult(id: command.id)
        }
    }

    private func signIn(_ command: AppCommand) async -> CommandResult {
        do {
            let user = try await loginUseCase.call(command.email ?? "", command.password ?? "")
            _ = bloc.emit(.appAuthenticated)
            reporter.signInFinished(account: user.id)
            return CommandResult(id: command.id, content: ["account": .string(user.id)])
        } catch is NaiveFlutter.InvalidInput {
            reporter.signInFinished(account: nil)
            return failed(command, "invalidInput", "sign-in input is invalid")
        } catch {
            reporter.signInFinished(account: nil)
            return failed(command, "signInFailed", "sign-in failed")
        }
    }
}
