// JSONValue is part of the protocol's API: importing ConformanceProtocol (or AdapterKit) brings it.
@_exported public import JSONCore

/// Who the client under test is, from its `hello`.
public struct ImplementationInfo: Sendable, Hashable {
    public var name: String
    public var version: String
    public var language: String
    public var platform: String

    public init(name: String, version: String, language: String, platform: String) {
        self.name = name
        self.version = version
        self.language = language
        self.platform = platform
    }
}

/// The virtual clock as the device sees it: a wall clock that may be skewed, and a monotonic one.
public struct ClockReading: Sendable, Hashable {
    public var wall: Double
    public var monotonic: Double

    public init(wall: Double, monotonic: Double) {
        self.wall = wall
        self.monotonic = monotonic
    }
}

/// An error with a code, and whether its outcome is definite (a timed-out refresh is not: the server may
/// have rotated the token).
public struct ErrorInfo: Sendable, Hashable {
    public var code: String
    public var message: String?
    public var definite: Bool

    public init(code: String, message: String? = nil, definite: Bool) {
        self.code = code
        self.message = message
        self.definite = definite
    }
}

/// An HTTP request as the client would send it; bodies are JSON (or null).
public struct HTTPRequestMessage: Sendable, Hashable {
    public var method: String
    public var path: String
    public var headers: [String: String]
    public var body: JSONValue

    public init(method: String, path: String, headers: [String: String] = [:], body: JSONValue = .null) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// A header value, with the name matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The bearer token of the Authorization header, if any.
    public var bearerToken: String? {
        guard let value = header("authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }
}

public struct HTTPResponseMessage: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: JSONValue

    public init(status: Int, headers: [String: String] = [:], body: JSONValue = .null) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The app and OS events the runner sends.
public enum CommandKind: String, Sendable, Hashable, CaseIterable {
    case launch, signIn, request, signOut, switchAccount
    case background, foreground, backgroundRefresh, lock, unlock, online, offline
}

public struct AppCommand: Sendable, Hashable {
    public var id: String
    public var kind: CommandKind
    public var email: String?
    public var password: String?
    public var resource: String?

    public init(id: String, kind: CommandKind, email: String? = nil, password: String? = nil, resource: String? = nil) {
        self.id = id
        self.kind = kind
        self.email = email
        self.password = password
        self.resource = resource
    }
}

public enum StorageOperation: String, Sendable, Hashable, CaseIterable {
    case get, set, delete
}

/// Keychain-style accessibility: `whenUnlocked` items cannot be read or written while the device is locked;
/// `afterFirstUnlock` items can, once the device was unlocked after boot.
public enum Accessibility: String, Sendable, Hashable, CaseIterable {
    case afterFirstUnlock, whenUnlocked
}

/// How the client's HTTP requests reach the world. `message`: as `http` effects on the protocol.
/// `loopback`: as real HTTP/1.1 requests to the runner's server on 127.0.0.1, so the client's own HTTP stack
/// and interceptors run; everything else stays on the protocol.
public enum HTTPMode: String, Sendable, Hashable, CaseIterable {
    case message, loopback
}
