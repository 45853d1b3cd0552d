import AdapterKit
import ConformanceProtocol
import JSONCore

// A port of "iOS - URLSession with Token Refresh" of Specs/sources/003_a7334a1b43f9a998.txt: the
// TokenRefreshCoordinator actor and the AuthenticatedAPIClient, kept as close as Swift on this host allows.
// What 003 leaves out (Endpoint, APIClient, AuthService) is the plainest thing that fits its calls.

extension NaiveIOS {
    enum AppError: Error, Sendable {
        case unauthorized
        case invalidInput(String)
        case invalidCredentials
    }

    enum APIError: Error, Sendable {
        case unauthorized
        case http(status: Int, body: JSONValue)
        case transport(ErrorInfo)
        case cancelled
    }

    /// Not in 003: an HTTP request as the API client sends it.
    struct Endpoint: Sendable {
        var method: String
        var path: String
        var headers: [String: String] = [:]
        var body: JSONValue = .null

        func withAuthorization(_ value: String) -> Endpoint {
            var modified = self
            modified.headers["Authorization"] = value
            return modified
        }
    }

    protocol APIClient: Sendable {
        // Adapted: `request<T: Decodable>(_:) -> T` returns the JSON body; the callers here read JSON.
        func request(_ endpoint: Endpoint) async throws -> JSONValue
    }

    /// Not in 003: URLSession as the base client. A 401 is `APIError.unauthorized`, other non-2xx statuses
    /// and transport failures are errors of their own.
    final class URLSessionAPIClient: APIClient {
        private let session: ClientEffects

        init(session: ClientEffects) {
            self.session = session
        }

        func request(_ endpoint: Endpoint) async throws -> JSONValue {
            let message = HTTPRequestMessage(method: endpoint.method, path: endpoint.path, headers: endpoint.headers, body: endpoint.body)
            switch await session.http(message) {
            case .response(let response) where (200..<300).contains(response.status):
                return response.body
            case .response(let response) where response.status == 401:
                throw APIError.unauthorized
            case .response(let response):
                throw APIError.http(status: response.status, body: response.body)
            case .failure(let info):
                throw APIError.transport(info)
            case .cancelled:
                throw APIError.cancelled
            }
        }
    }

    /// Not in 003: the auth endpoints on the plain base client (no Authorization header, no 401 handling).
    /// It tells the reporter when a refresh goes out and comes back.
    final class AuthService: Sendable {
        private let baseClient: any APIClient
        private let reporter: SessionReporter

        init(baseClient: any APIClient, reporter: SessionReporter) {
            self.baseClient = baseClient
            self.reporter = reporter
        }

        func refresh(using refreshToken: String) async throws -> TokenPair {
            reporter.refreshStarted()
            do {
                let body = try await baseClient.request(Endpoint(method: "POST", path: "/auth/refresh",
                                                                 body: ["refresh_token": .string(refreshToken)]))
                guard let access = body["access_token"]?.string, let refresh = body["refresh_token"]?.string else {
                    throw APIError.http(status: 200, body: body)
                }
                reporter.refreshFinished(failure: nil)
                return TokenPair(accessToken: access, refreshToken: refresh)
            } catch {
                reporter.refreshFinished(failure: Self.failureClass(error))
                throw error
            }
        }

        static func failureClass(_ error: any Error) -> String {
            switch error as? APIError {
            case .http(let status, _)?: KnownBadClients.failureClass(status: status, transport: nil)
            case .transport(let info)?: info.code
            case .unauthorized?: "invalidGrant"
            case .cancelled?, nil: "unexpectedResponse"
            }
        }
    }

    // App/Core/Networking/AuthenticatedAPIClient.swift
    actor TokenRefreshCoordinator {
        private var refreshTask: Task<Void, Error>?
        // Adapted: the host's executor, which every task of a hosted client must prefer.
        private let executor: any TaskExecutor

        init(executor: any TaskExecutor) {
            self.executor = executor
        }

        func refreshIfNeeded(
            tokenStore: any TokenStore,
            authService: AuthService
        ) async throws {
            // If a refresh is already in progress, await it.
            if let refreshTask {
                try await refreshTask.value
                return
            }

            guard let refreshToken = await tokenStore.refreshToken else {
                throw AppError.unauthorized
            }

            // Adapted: in 003 the Keychain read above is synchronous, so no other caller can enter between the
            // check above and `refreshTask = task` below. Here the read suspends, so the check is repeated; this
            // keeps the original's single flight instead of adding a race it does not have.
            if let refreshTask {
                try await refreshTask.value
                return
            }

            let task = Task(executorPreference: executor) {
                do {
                    let tokenPair = try await authService.refresh(using: refreshToken)
                    await tokenStore.save(tokenPair)
                } catch {
                    await tokenStore.clear()
                    throw AppError.unauthorized
                }
            }

            refreshTask = task
            defer { refreshTask = nil }

            try await task.value
        }
    }

    final class AuthenticatedAPIClient: APIClient {
        private let baseClient: any APIClient
        private let tokenStore: any TokenStore
        private let authService: AuthService
        let refreshCoordinator: TokenRefreshCoordinator

        // Adapted: the coordinator is created with the host's executor (`= TokenRefreshCoordinator()` in 003).
        init(baseClient: any APIClient, tokenStore: any TokenStore, authService: AuthService, executor: any TaskExecutor) {
            self.baseClient = baseClient
            self.tokenStore = tokenStore
            self.authService = authService
            self.refreshCoordinator = TokenRefreshCoordinator(executor: executor)
        }

        func request(_ endpoint: Endpoint) async throws -> JSONValue {
            do {
                return try await performRequest(endpoint)
            } catch APIError.unauthorized {
                try await refreshCoordinator.refreshIfNeeded(
                    tokenStore: tokenStore,
                    authService: authService
                )
                return try await performRequest(endpoint)
            }
        }

        private func performRequest(_ endpoint: Endpoint) async throws -> JSONValue {
            var modified = endpoint
            if let token = await tokenStore.accessToken {
                modified = endpoint.withAuthorization("Bearer \(token)")
            }
            return try await baseClient.request(modified)
        }
    }
}
