import AdapterKit
import ConformanceProtocol
import Foundation
import JSONCore

// A port of "Flutter - Dio Interceptor" of Specs/sources/003_a7334a1b43f9a998.txt, kept as close as Swift on this
// host allows, with the few Dio pieces it runs in: `fetch` runs every interceptor's onRequest, sends, and on an
// error status or a transport failure runs every interceptor's onError, which may pass the error on or
// resolve it with a response. The AuthInterceptor's retry goes through the same Dio, interceptors included.

extension NaiveFlutter {
    /// dio's RequestOptions, the parts used here.
    struct RequestOptions: Sendable {
        var method: String
        var path: String
        var headers: [String: String] = [:]
        var data: JSONValue = .null

        func copyWith(headers: [String: String]) -> RequestOptions {
            var copy = self
            copy.headers = headers
            return copy
        }
    }

    struct Response: Sendable {
        let requestOptions: RequestOptions
        let statusCode: Int
        let data: JSONValue
    }

    /// DioException: a bad status (with its response) or a transport failure (without one).
    struct DioException: Error, Sendable {
        let requestOptions: RequestOptions
        let response: Response?
        let transport: ErrorInfo?
    }

    /// ErrorInterceptorHandler: `next(err)` passes the error on; `resolve(response)` ends it with a response.
    enum ErrorDecision: Sendable {
        case next(DioException)
        case resolve(Response)
    }

    protocol Interceptor: Sendable {
        func onRequest(_ options: RequestOptions) -> RequestOptions
        func onError(_ err: DioException) async -> ErrorDecision
    }

    final class Dio: @unchecked Sendable {
        // @unchecked: `interceptors` is filled once while the app is built, before any request.
        private let adapter: ClientEffects
        var interceptors: [any Interceptor] = []

        init(adapter: ClientEffects) {
            self.adapter = adapter
        }

        func get(_ path: String) async throws -> Response {
            try await fetch(RequestOptions(method: "GET", path: path))
        }

        func post(_ path: String, data: JSONValue) async throws -> Response {
            try await fetch(RequestOptions(method: "POST", path: path, data: data))
        }

        func fetch(_ requestOptions: RequestOptions) async throws -> Response {
            var options = requestOptions
            for interceptor in interceptors { options = interceptor.onRequest(options) }
            var error: DioException
            let message = HTTPRequestMessage(method: options.method, path: options.path, headers: options.headers, body: options.data)
            switch await adapter.http(message) {
            case .response(let response) where (200..<300).contains(response.status): // validateStatus
                return Response(requestOptions: options, statusCode: response.status, data: response.body)
            case .response(let response):
                error = DioException(requestOptions: options, response: Response(requestOptions: options, statusCode: response.status,
                                                                                 data: response.body), transport: nil)
            case .failure(let info):
                error = DioException(requestOptions: options, response: nil, transport: info)
            case .cancelled:
                error = DioException(requestOptions: options, response: nil, transport: ErrorInfo(code: "cancelled", definite: true))
            }
            for interceptor in interceptors {
                switch await interceptor.onError(error) {
                case .next(let passed): error = passed
                case .resolve(let response): return response
                }
            }
            throw error
        }
    }

    /// Not in 003: the auth endpoints, on a Dio of their own without the AuthInterceptor. It tells the reporter
    /// when a refresh goes out and comes back.
    final class AuthApi: Sendable {
        private let dio: Dio
        private let reporter: SessionReporter

        init(dio: Dio, reporter: SessionReporter) {
            self.dio = dio
            self.reporter = reporter
        }

        func refresh(_ refreshToken: String) async throws -> TokenPair {
            reporter.refreshStarted()
            do {
                let pair = try await tokens(dio.post("/auth/refresh", data: ["refresh_token": .string(refreshToken)]))
                reporter.refreshFinished(failure: nil)
                return pair
            } catch let error as DioException {
                reporter.refreshFinished(failure: failureClass(status: error.response?.statusCode, transport: error.transport?.code))
                throw error
            }
        }

        func login(_ email: String, _ password: String) async throws -> TokenPair {
            try await tokens(dio.post("/auth/login", data: ["email": .string(email), "password": .string(password)]))
        }

        private func tokens(_ response: Response) throws -> TokenPair {
            guard let access = response.data["access_token"]?.string, let refresh = response.data["refresh_token"]?.string else {
                throw DioException(requestOptions: response.requestOptions, response: response, transport: nil)
            }
            return TokenPair(accessToken: access, refreshToken: refresh)
        }
    }

    // lib/core/network/auth_interceptor.dart
    final class AuthInterceptor: Interceptor, @unchecked Sendable {
        // @unchecked: `_refreshing` is only touched with `lock` held; `_dio` is set once in init.
        private weak var _dio: Dio?
        private let _tokenStore: any TokenStore
        private let _authApi: AuthApi
        private let lock = NSLock()
        // Adapted: Dart's eager Future<void>? is a Task, started on the host's executor.
        private let executor: any TaskExecutor

        private var _refreshing: Task<Void, any Error>?

        init(_ dio: Dio, _ tokenStore: any TokenStore, _ authApi: AuthApi, executor: any TaskExecutor) {
            _dio = dio
            _tokenStore = tokenStore
            _authApi = authApi
            self.executor = executor
        }

        func onRequest(_ options: RequestOptions) -> RequestOptions {
            var options = options
            let token = _tokenStore.accessToken
            if let token {
                options.headers["Authorization"] = "Bearer \(token)"
            }
            return options // handler.next(options)
        }

        func onError(_ err: DioException) async -> ErrorDecision {
            if err.response?.statusCode != 401 {
                return .next(err)
            }

            let refreshToken = _tokenStore.refreshToken
            guard let refreshToken else {
                await _tokenStore.clear()
                return .next(err)
            }

            // Ensure only one refresh happens at a time.
            // _refreshing ??= _refresh(refreshToken);
            let refreshing: Task<Void, any Error> = lock.withLock {
                if let _refreshing { return _refreshing }
                let started = Task(executorPreference: executor) { try await self._refresh(refreshToken) }
                _refreshing = started
                return started
            }

            // finally { _refreshing = null; }
            defer { lock.withLock { _refreshing = nil } }
            do {
                try await refreshing.value

                let newAccessToken = _tokenStore.accessToken
                guard let newAccessToken else {
                    return .next(err)
                }

                let opts = err.requestOptions
                var headers = opts.headers
                headers["Authorization"] = "Bearer \(newAccessToken)"
                guard let dio = _dio else { return .next(err) }
                let retried = try await dio.fetch(opts.copyWith(headers: headers))

                return .resolve(retried)
            } catch {
                await _tokenStore.clear()
                return .next(err)
            }
        }

        private func _refresh(_ refreshToken: String) async throws {
            let pair = try await _authApi.refresh(refreshToken)
            await _tokenStore.save(pair)
        }
    }
}
