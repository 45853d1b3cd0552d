import ConformanceProtocol
import Foundation
import JSONCore
import SessionKit

/// SessionKit's HTTP transport, answered by the runner's world.
struct BridgedTransport: HTTPTransport {
    let bridge: EffectBridge
    let cause: @Sendable () -> String?

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        let body: JSONValue = request.body.flatMap { try? JSONParser.parse(String(decoding: $0, as: UTF8.self)) } ?? .null
        let message = HTTPRequestMessage(method: request.method.rawValue, path: request.path, headers: request.headers, body: body)
        let cause = cause()
        switch await bridge.request({ .http(id: $0, cause: cause, message) }) {
        case .response(let response)?:
            let data = response.body.isNull ? Data() : Data(response.body.jsonText.utf8)
            return HTTPResponse(status: response.status, headers: response.headers, body: data)
        case .failure(let info)?:
            switch info.code {
            case "offline": throw TransportFailure(.offline, context: info.message ?? "")
            case "connectionLost": throw TransportFailure(.connectionLost, context: info.message ?? "")
            default: throw TransportFailure(.timeout, context: info.message ?? "")
            }
        case nil:
            throw TransportFailure(.cancelled)
        default:
            throw TransportFailure(.connectionLost, context: "unexpected reply to an HTTP exchange")
        }
    }
}

struct BridgedSecureStorage: SecureStorage {
    let bridge: EffectBridge

    func read(_ key: String) async throws(SecureStorageError) -> Data? {
        switch await bridge.request({ .storage(id: $0, operation: .get, key: key, value: nil, accessibility: nil) }) {
        case .value(let value)?: return value.map { Data($0.utf8) }
        case .error(let info)? where info.code == "locked": throw SecureStorageError(.deviceLocked)
        default: throw SecureStorageError(.unavailable)
        }
    }

    func write(_ data: Data, for key: String, accessibility: SecureStorageAccessibility) async throws(SecureStorageError) {
        let value = String(decoding: data, as: UTF8.self)
        let level: Accessibility = accessibility == .afterFirstUnlock ? .afterFirstUnlock : .whenUnlocked
        try Self.check(await bridge.request { .storage(id: $0, operation: .set, key: key, value: value, accessibility: level) })
    }

    func delete(_ key: String) async throws(SecureStorageError) {
        try Self.check(await bridge.request { .storage(id: $0, operation: .delete, key: key, value: nil, accessibility: nil) })
    }

    private static func check(_ reply: ReplyBody?) throws(SecureStorageError) {
        switch reply {
        case .done?, .value?: return
        case .error(let info)? where info.code == "locked": throw SecureStorageError(.deviceLocked)
        default: throw SecureStorageError(.unavailable)
        }
    }
}

struct BridgedPreferences: PreferencesStorage {
    let bridge: EffectBridge

    func value(for key: String) async throws(PreferencesError) -> Data? {
        guard case .value(let value)? = await bridge.request({ .preferences(id: $0, operation: .get, key: key, value: nil) }) else {
            throw PreferencesError(context: "no reply")
        }
        return value.map { Data($0.utf8) }
    }

    func setValue(_ data: Data, for key: String) async throws(PreferencesError) {
        let value = String(decoding: data, as: UTF8.self)
        guard await bridge.request({ .preferences(id: $0, operation: .set, key: key, value: value) }) != nil else {
            throw PreferencesError(context: "no reply")
        }
    }

    func removeValue(for key: String) async throws(PreferencesError) {
        guard await bridge.request({ .preferences(id: $0, operation: .delete, key: key, value: nil) }) != nil else {
            throw PreferencesError(context: "no reply")
        }
    }
}

/// The runner's virtual clock: readings come with `clock` messages; sleeps are effects the runner answers
/// when its time reaches the deadline.
struct BridgedClock: SessionClock {
    let bridge: EffectBridge

    func wallClockNow() -> Date { Date(timeIntervalSince1970: bridge.clock.wall) }

    func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: .milliseconds(Int64((bridge.clock.monotonic * 1000).rounded())))
    }

    func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        _ = await bridge.request { .sleep(id: $0, seconds: seconds) }
        try Task.checkCancellation()
    }
}

/// SplitMix64 from the seed of the runner's `welcome`.
final class BridgedRandom: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    func next() -> UInt64 {
        lock.withLock {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}

struct BridgedLog: LogSink {
    let bridge: EffectBridge

    func log(_ record: LogRecord) {
        bridge.emit(.log(level: record.level.rawValue, message: record.description))
    }
}

struct BridgedUI: UISink {
    let bridge: EffectBridge

    func present(_ event: SessionKit.UIEvent) {
        switch event {
        case .contentShown(let content):
            let body = try? JSONParser.parse(String(decoding: content.body, as: UTF8.self))
            bridge.emit(.ui(ConformanceProtocol.UIEvent(
                kind: .content, resource: content.resource, account: content.account.rawValue,
                generation: Int(content.generation.rawValue), contentID: body?["contentId"]?.string)))
        case .signInPromptShown:
            bridge.emit(.ui(ConformanceProtocol.UIEvent(kind: .signInPrompt)))
        case .contentCleared:
            break
        }
    }
}

struct BridgedEvents: SessionEventSink {
    let bridge: EffectBridge

    func record(_ transition: SessionTransition) {
        bridge.emit(.transition(TransitionEvent(
            transition: transition.id.rawValue, from: transition.from.rawValue, to: transition.to.rawValue,
            account: transition.account?.rawValue, generation: Int(transition.generation.rawValue),
            reason: transition.failureClass?.rawValue ?? transition.reason.rawValue)))
    }
}
