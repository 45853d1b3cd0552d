import POSIXSync
import Foundation
import SessionKit

/// Plain preferences storage shared by every process of a `TestWorld`, traced.
public final class InMemoryPreferences: Sendable {
    private let values = Locked<[String: Data]>([:])
    /// Changes still to refuse: of one kind, or any change when the kind is nil.
    private let failures = Locked<[(kind: PreferencesOperation.Kind?, remaining: Int)]>([])
    private let trace: WorldTrace

    /// Creates empty preferences that record to `trace`.
    public init(trace: WorldTrace) {
        self.trace = trace
    }

    /// The preferences as one process sees them.
    public func view(for process: ProcessHandle) -> any PreferencesStorage {
        ProcessPreferences(preferences: self, process: process)
    }

    /// Everything stored, by key.
    public var contents: [String: Data] { values.withLock { $0 } }

    /// The next `count` changes of `kind` (any change, set or remove, when nil) fail with `PreferencesError` and
    /// change nothing; reads still work.
    public func failNext(_ kind: PreferencesOperation.Kind?, count: Int = 1) {
        failures.withLock { $0.append((kind, count)) }
    }

    fileprivate func takeFailure(_ kind: PreferencesOperation.Kind) -> Bool {
        failures.withLock { failures in
            guard let index = failures.firstIndex(where: { ($0.kind ?? kind) == kind }) else { return false }
            failures[index].remaining -= 1
            if failures[index].remaining == 0 { failures.remove(at: index) }
            return true
        }
    }

    fileprivate func perform(_ kind: PreferencesOperation.Kind, key: String, data: Data?, process: ProcessHandle) async -> Data? {
        let outcome = values.withLock { values -> Data?? in
            guard process.isAlive else { return .none }
            trace.append(.preferences(PreferencesOperation(kind: kind, key: key, data: data)), process: process.id)
            switch kind {
            case .get: return .some(values[key])
            case .set: values[key] = data
            case .remove: values[key] = nil
            }
            return .some(nil)
        }
        guard let outcome else { return await process.suspendForever() }
        return outcome
    }
}

private struct ProcessPreferences: PreferencesStorage {
    let preferences: InMemoryPreferences
    let process: ProcessHandle

    func value(for key: String) async throws(PreferencesError) -> Data? {
        await preferences.perform(.get, key: key, data: nil, process: process)
    }

    func setValue(_ data: Data, for key: String) async throws(PreferencesError) {
        if preferences.takeFailure(.set) { throw PreferencesError(context: "set '\(key)' refused") }
        _ = await preferences.perform(.set, key: key, data: data, process: process)
    }

    func removeValue(for key: String) async throws(PreferencesError) {
        if preferences.takeFailure(.remove) { throw PreferencesError(context: "remove '\(key)' refused") }
        _ = await preferences.perform(.remove, key: key, data: nil, process: process)
    }
}
