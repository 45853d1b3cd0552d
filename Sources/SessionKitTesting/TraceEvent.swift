import Foundation
import SessionKit

/// One observable effect of the world, in the order it happened.
public enum TraceEvent: Sendable, CustomStringConvertible {
    case processStarted
    case processKilled
    case httpRequest(exchange: Int, HTTPRequest)
    /// The exchange is parked by a hold rule until the test releases it.
    case httpHeld(exchange: Int, HTTPRequest, HoldStage)
    case httpReply(exchange: Int, TransportReply)
    case secureStorage(SecureStorageOperation)
    /// A secure storage operation is parked until the test releases it.
    case secureStorageHeld(id: Int, SecureStorageOperation.Kind, key: String)
    case preferences(PreferencesOperation)
    case sleep(Duration)
    case log(LogRecord)
    case ui(UIEvent)
    case transition(SessionTransition)

    public var description: String {
        switch self {
        case .processStarted: "process started"
        case .processKilled: "process killed"
        case .httpRequest(let id, let request): "http#\(id) -> \(request)"
        case .httpHeld(let id, let request, let stage): "http#\(id) held \(stage) \(request)"
        case .httpReply(let id, let reply): "http#\(id) <- \(reply)"
        case .secureStorage(let operation): "secure \(operation)"
        case .secureStorageHeld(let id, let kind, let key): "secure held#\(id) \(kind) \(key)"
        case .preferences(let operation): "prefs \(operation)"
        case .sleep(let duration): "sleep \(duration)"
        case .log(let record): "log \(record)"
        case .ui(let event): "ui \(event)"
        case .transition(let transition): "transition \(transition)"
        }
    }
}

/// A secure storage operation as applied, with its outcome.
public struct SecureStorageOperation: Sendable, Hashable, CustomStringConvertible {
    /// Read, write or delete.
    public enum Kind: String, Sendable, Hashable {
        case read, write, delete
    }

    /// What was done, to which key, with which accessibility.
    public var kind: Kind
    public var key: String
    public var accessibility: SecureStorageAccessibility?
    /// The bytes written (writes only).
    public var data: Data?
    /// `nil` on success.
    public var failure: SecureStorageError.Code?

    public var description: String {
        "\(kind.rawValue) \(key)" + (accessibility.map { " [\($0.rawValue)]" } ?? "") + (failure.map { " failed \($0.rawValue)" } ?? "")
    }
}

/// A preferences operation as applied.
public struct PreferencesOperation: Sendable, Hashable, CustomStringConvertible {
    /// Get, set or remove.
    public enum Kind: String, Sendable, Hashable {
        case get, set, remove
    }

    /// What was done, to which key, with which bytes.
    public var kind: Kind
    public var key: String
    public var data: Data?

    public var description: String { "\(kind.rawValue) \(key)" }
}
