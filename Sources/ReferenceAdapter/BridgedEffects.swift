import AdapterKit
import ConformanceProtocol
import Foundation
import JSONCore
import SessionKit

/// SessionKit's HTTP transport, answered by the runner's world.
struct BridgedTransport: HTTPTransport {
    let effects: ClientEffects

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        // A form-encoded body travels as a JSON string (docs/adapter-protocol.md); any other as JSON.
        let text = request.body.map { String(decoding: $0, as: UTF8.self) }
        let isForm = request.headers.contains { $0.key.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("application/x-www-form-urlencoded") }
        let body: JSONValue = text.flatMap { isForm ? .string($0) : try? JSONParser.parse($0) } ?? .null
        let message = HTTPRequestMessage(method: request.method.rawValue, path: request.path, headers: request.headers, body: body)
        switch await effects.http(message) {
        case .response(let response):
            let data = response.body.isNull ? Data() : Data(response.body.jsonText.utf8)
            return HTTPResponse(status: response.status, headers: response.headers, body: data)
        case .failure(let info):
            switch info.code {
            case "offline": throw TransportFailure(.offline, context: info.message ?? "")
            case "connectionLost": throw TransportFailure(.connectionLost, context: info.message ?? "")
            default: throw TransportFailure(.timeout, context: info.message ?? "")
            }
        case .cancelled:
            throw TransportFailure(.cancelled)
        }
    }
}

struct BridgedSecureStorage: SecureStorage {
    let effects: ClientEffects

    func read(_ key: String) async throws(SecureStorageError) -> Data? {
        switch await effects.secureGet(key) {
        case .success(let value): return value.map { Data($0.utf8) }
        case .failure(let failure): throw SecureStorageError(failure.isLocked ? .deviceLocked : .unavailable)
        }
    }

    func write(_ data: Data, for key: String, accessibility: SecureStorageAccessibility) async throws(SecureStorageError) {
        let level: Accessibility = accessibility == .afterFirstUnlock ? .afterFirstUnlock : .whenUnlocked
        if case .failure(let failure) = await effects.secureSet(key, String(decoding: data, as: UTF8.self), accessibility: level) {
            throw SecureStorageError(failure.isLocked ? .deviceLocked : .unavailable)
        }
    }

    func delete(_ key: String) async throws(SecureStorageError) {
        if case .failure(let failure) = await effects.secureDelete(key) {
            throw SecureStorageError(failure.isLocked ? .deviceLocked : .unavailable)
        }
    }
}

struct BridgedPreferences: PreferencesStorage {
    let effects: ClientEffects

    func value(for key: String) async throws(PreferencesError) -> Data? {
        await effects.preferenceGet(key).map { Data($0.utf8) }
    }

    func setValue(_ data: Data, for key: String) async throws(PreferencesError) {
        if case .failure(let failure) = await effects.preferenceSet(key, String(decoding: data, as: UTF8.self)) {
            throw PreferencesError(context: "set '\(key)': \(failure.info.code)")
        }
    }

    func removeValue(for key: String) async throws(PreferencesError) {
        if case .failure(let failure) = await effects.preferenceDelete(key) {
            throw PreferencesError(context: "delete '\(key)': \(failure.info.code)")
        }
    }
}

/// The runner's virtual clock: readings come with `clock` messages; sleeps are effects the runner answers
/// when its time reaches the deadline.
struct BridgedClock: SessionClock {
    let effects: ClientEffects

    func wallClockNow() -> Date { Date(timeIntervalSince1970: effects.clock.wall) }

    func monotonicNow() -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: .milliseconds(Int64((effects.clock.monotonic * 1000).rounded())))
    }

    func sleep(for duration: Duration) async throws {
        try await effects.sleep(seconds: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
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
    let effects: ClientEffects

    func log(_ record: LogRecord) { effects.log(record.level.rawValue, record.description) }
}

struct BridgedUI: UISink {
    let effects: ClientEffects

    func present(_ event: SessionKit.UIEvent) {
        switch event {
        case .contentShown(let content):
            let body = try? JSONParser.parse(String(decoding: content.body, as: UTF8.self))
            effects.show(ConformanceProtocol.UIEvent(
                kind: .content, resource: content.resource, account: content.account.rawValue,
                generation: Int(content.generation.rawValue), contentID: body?["contentId"]?.string))
        case .signInPromptShown:
            effects.show(ConformanceProtocol.UIEvent(kind: .signInPrompt))
        case .contentCleared:
            break
        }
    }
}

struct BridgedEvents: SessionEventSink {
    let effects: ClientEffects

    func record(_ transition: SessionTransition) {
        effects.transition(TransitionEvent(
            transition: transition.id.rawValue, from: transition.from.rawValue, to: transition.to.rawValue,
            account: transition.account?.rawValue, generation: Int(transition.generation.rawValue),
            reason: transition.failureClass?.rawValue ?? transition.reason.rawValue))
    }
}

extension SessionEnvironment {
    /// Every effect of SessionKit routed to the runner, and its tasks kept on the host's executor.
    init(effects: ClientEffects) {
        self.init(
            transport: BridgedTransport(effects: effects), secureStorage: BridgedSecureStorage(effects: effects),
            preferences: BridgedPreferences(effects: effects), clock: BridgedClock(effects: effects),
            random: BridgedRandom(seed: effects.seed), log: BridgedLog(effects: effects), ui: BridgedUI(effects: effects),
            events: BridgedEvents(effects: effects), taskExecutor: effects.taskExecutor)
    }
}
