import AdapterKit
import ConformanceProtocol
import JSONCore

// A port of "Android - OkHttp Authenticator" of Specs/sources/003_a7334a1b43f9a998.txt, kept as close as Swift on
// this host allows, with the few OkHttp and Retrofit pieces it runs in. OkHttp runs each call on its own
// thread and calls authenticate() on that thread, blocking, with no lock; here each call is its own task and
// the blocking calls are awaits, so concurrent 401s run authenticate() concurrently, as on a device.

extension NaiveAndroid {
    /// okhttp3.Request, the parts used here.
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [String: String] = [:]
        var body: JSONValue = .null

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        /// `newBuilder().header(name, value).build()`
        func with(header name: String, _ value: String) -> Request {
            var copy = self
            copy.headers = copy.headers.filter { $0.key.lowercased() != name.lowercased() }
            copy.headers[name] = value
            return copy
        }
    }

    /// okhttp3.Response, the parts used here.
    final class Response: Sendable {
        let request: Request
        let code: Int
        let body: JSONValue
        let priorResponse: Response?

        init(request: Request, code: Int, body: JSONValue, priorResponse: Response?) {
            self.request = request
            self.code = code
            self.body = body
            self.priorResponse = priorResponse
        }
    }

    /// java.io.IOException: no response (timeout, offline, connection lost).
    struct IOException: Error, Sendable {
        let info: ErrorInfo
    }

    /// retrofit2.HttpException: a non-2xx response to a call that returns a body.
    struct HttpException: Error, Sendable {
        let code: Int
    }

    protocol Interceptor: Sendable {
        func intercept(_ request: Request) async -> Request
    }

    protocol Authenticator: Sendable {
        func authenticate(route: Void?, response: Response) async -> Request?
    }

    /// okhttp3.OkHttpClient: application interceptors once per call, then the network; a 401 goes to the
    /// authenticator, whose request (if any) is sent as a follow-up, with the 401 as its prior response.
    final class OkHttpClient: Sendable {
        private let network: ClientEffects
        private let interceptors: [any Interceptor]
        private let authenticator: (any Authenticator)?

        init(network: ClientEffects, interceptors: [any Interceptor] = [], authenticator: (any Authenticator)? = nil) {
            self.network = network
            self.interceptors = interceptors
            self.authenticator = authenticator
        }

        func execute(_ call: Request) async throws -> Response {
            var request = call
            for interceptor in interceptors { request = await interceptor.intercept(request) }
            var prior: Response?
            // RetryAndFollowUpInterceptor (OkHttp also stops after 20 follow-ups; responseCount stops it first here).
            for _ in 0...20 {
                let response = try await send(request, prior: prior)
                guard response.code == 401, let authenticator,
                      let followUp = await authenticator.authenticate(route: nil, response: response) else {
                    return response
                }
                request = followUp
                prior = response
            }
            throw IOException(info: ErrorInfo(code: "tooManyFollowUps", message: "Too many follow-up requests: 21", definite: true))
        }

        private func send(_ request: Request, prior: Response?) async throws -> Response {
            let message = HTTPRequestMessage(method: request.method, path: request.path, headers: request.headers, body: request.body)
            switch await network.http(message) {
            case .response(let response):
                return Response(request: request, code: response.status, body: response.body, priorResponse: prior)
            case .failure(let info):
                throw IOException(info: info)
            case .cancelled:
                throw IOException(info: ErrorInfo(code: "cancelled", definite: true))
            }
        }
    }

    /// Not in 003: the interceptor that puts the stored access token on every API call.
    struct AuthorizationInterceptor: Interceptor {
        let tokenStore: any TokenStore

        func intercept(_ request: Request) async -> Request {
            guard let token = await tokenStore.getAccessToken() else { return request }
            return request.with(header: "Authorization", "Bearer \(token)")
        }
    }

    struct TokenPair: Sendable {
        let accessToken: String
        let refreshToken: String
        let accountId: String?
    }

    struct RefreshRequest: Sendable {
        let refreshToken: String
    }

    /// Retrofit's AuthApi, "backed by a separate OkHttpClient without this authenticator". It tells the
    /// reporter when a refresh goes out and comes back.
    final class AuthApi: Sendable {
        private let client: OkHttpClient
        private let reporter: SessionReporter

        init(client: OkHttpClient, reporter: SessionReporter) {
            self.client = client
            self.reporter = reporter
        }

        func refresh(_ body: RefreshRequest) async throws -> TokenPair {
            reporter.refreshStarted()
            do {
                let pair = try await post("/auth/refresh", ["refresh_token": .string(body.refreshToken)])
                reporter.refreshFinished(failure: nil)
                return pair
            } catch let error as HttpException {
                reporter.refreshFinished(failure: failureClass(status: error.code, transport: nil))
                throw error
            } catch let error as IOException {
                reporter.refreshFinished(failure: error.info.code)
                throw error
            }
        }

        func login(email: String, password: String) async throws -> TokenPair {
            try await post("/auth/login", ["email": .string(email), "password": .string(password)])
        }

        private func post(_ path: String, _ body: JSONValue) async throws -> TokenPair {
            let response = try await client.execute(Request(method: "POST", path: path, body: body))
            guard (200..<300).contains(response.code) else { throw HttpException(code: response.code) }
            guard let access = response.body["access_token"]?.string, let refresh = response.body["refresh_token"]?.string else {
                throw HttpException(code: response.code)
            }
            return TokenPair(accessToken: access, refreshToken: refresh, accountId: response.body["account_id"]?.string)
        }
    }

    // app/core/network/TokenAuthenticator.kt
    final class TokenAuthenticator: Authenticator {
        private let tokenStore: any TokenStore
        private let authApi: AuthApi

        init(tokenStore: any TokenStore, authApi: AuthApi) {
            self.tokenStore = tokenStore
            self.authApi = authApi
        }

        func authenticate(route: Void?, response: Response) async -> Request? {
            // Avoid infinite loops
            if responseCount(response) >= 2 { return nil }

            let requestAccessToken = response.request.header("Authorization")
                .map { $0.hasPrefix("Bearer ") ? String($0.dropFirst("Bearer ".count)) : $0 }

            // If another request already refreshed the token, retry with the latest one.
            let latestAccessToken = await tokenStore.getAccessToken()
            if let latestAccessToken, latestAccessToken != requestAccessToken {
                return response.request.with(header: "Authorization", "Bearer \(latestAccessToken)")
            }

            // Refresh token (use an AuthApi backed by a separate OkHttpClient without this authenticator)
            guard let refreshToken = await tokenStore.getRefreshToken() else { return nil }

            let tokenPair: TokenPair
            do {
                tokenPair = try await authApi.refresh(RefreshRequest(refreshToken: refreshToken))
            } catch {
                // runCatching { ... }.getOrElse { tokenStore.clear(); return null }
                await tokenStore.clear()
                return nil
            }

            await tokenStore.save(accessToken: tokenPair.accessToken, refreshToken: tokenPair.refreshToken)

            return response.request.with(header: "Authorization", "Bearer \(tokenPair.accessToken)")
        }

        private func responseCount(_ response: Response) -> Int {
            var count = 1
            var prior = response.priorResponse
            while let current = prior {
                count += 1
                prior = current.priorResponse
            }
            return count
        }
    }
}
