import POSIXSync
import Foundation
import SessionKit

/// Secure storage with iOS accessibility semantics and a device lock state, shared by every process of a
/// `TestWorld` (it survives process death). Operations can be failed or held, and are traced.
public final class InMemorySecureStorage: Sendable {
    /// The device lock state, as iOS data protection sees it.
    public enum LockState: String, Sendable, Hashable {
        /// After boot, before the first unlock: nothing is readable.
        case beforeFirstUnlock
        /// Locked after a first unlock: after-first-unlock items are accessible, when-unlocked items not.
        case locked
        case unlocked
    }

    /// One stored item.
    public struct Item: Sendable, Hashable {
        public var data: Data
        public var accessibility: SecureStorageAccessibility
    }

    private struct Fault {
        var kind: SecureStorageOperation.Kind?
        var code: SecureStorageError.Code
        var remaining: Int
    }

    private struct HoldRule {
        var kind: SecureStorageOperation.Kind
        var remaining: Int
    }

    private struct State {
        var items: [String: Item] = [:]
        var lockState: LockState
        var faults: [Fault] = []
        var holdRules: [HoldRule] = []
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextHeldID = 0
    }

    private let state: Locked<State>
    private let trace: WorldTrace

    /// Creates empty storage with the given lock state, recording to `trace`.
    public init(trace: WorldTrace, lockState: LockState = .unlocked) {
        self.trace = trace
        state = Locked(State(lockState: lockState))
    }

    /// The storage as one process sees it.
    public func view(for process: ProcessHandle) -> any SecureStorage {
        ProcessSecureStorage(storage: self, process: process)
    }

    /// Every stored item, by key.
    public var items: [String: Item] { state.withLock { $0.items } }

    /// The current lock state.
    public var lockState: LockState { state.withLock { $0.lockState } }

    /// Locks or unlocks the device (the client is told separately, through `deviceDidUnlock()`).
    public func setLockState(_ lockState: LockState) {
        state.withLock { $0.lockState = lockState }
    }

    /// Fails the next `count` operations of `kind` (any kind when `nil`) with `code`.
    public func failNext(_ kind: SecureStorageOperation.Kind?, with code: SecureStorageError.Code, count: Int = 1) {
        state.withLock { $0.faults.append(Fault(kind: kind, code: code, remaining: count)) }
    }

    /// Parks the next `count` operations of `kind` before they apply, until `releaseHeld`.
    public func holdNext(_ kind: SecureStorageOperation.Kind, count: Int = 1) {
        state.withLock { $0.holdRules.append(HoldRule(kind: kind, remaining: count)) }
    }

    /// Lets a held operation apply (unless its process was killed meanwhile).
    public func releaseHeld(_ id: Int) {
        state.withLock { $0.held.removeValue(forKey: id) }?.resume()
    }

    /// Waits for `count` held operations of `kind` and returns the id of the last one.
    @discardableResult
    public func waitForHeld(_ kind: SecureStorageOperation.Kind, count: Int = 1) async -> Int {
        await trace.waitUntil(count: count) { if case .secureStorageHeld(_, kind, _) = $0.event { true } else { false } }
        return trace.entries.compactMap { if case .secureStorageHeld(let id, kind, _) = $0.event { id } else { nil } }.last ?? -1
    }

    fileprivate func perform(_ kind: SecureStorageOperation.Kind, key: String, data: Data?, accessibility: SecureStorageAccessibility?, process: ProcessHandle) async -> Result<Data?, SecureStorageError> {
        guard process.isAlive else { return await process.suspendForever() }
        let heldID = state.withLock { state -> Int? in
            guard let index = state.holdRules.firstIndex(where: { $0.kind == kind }) else { return nil }
            state.holdRules[index].remaining -= 1
            if state.holdRules[index].remaining <= 0 { state.holdRules.remove(at: index) }
            defer { state.nextHeldID += 1 }
            return state.nextHeldID
        }
        if let heldID {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { $0.held[heldID] = continuation }
                trace.append(.secureStorageHeld(id: heldID, kind, key: key), process: process.id)
            }
        }
        // Applying and checking liveness under one lock: a killed process's write never lands.
        let outcome = state.withLock { state -> Result<Data?, SecureStorageError>? in
            guard process.isAlive else { return nil }
            let result = Self.apply(kind, key: key, data: data, accessibility: accessibility, to: &state)
            let failure: SecureStorageError.Code? = if case .failure(let error) = result { error.code } else { nil }
            trace.append(.secureStorage(SecureStorageOperation(kind: kind, key: key, accessibility: accessibility, data: data, failure: failure)), process: process.id)
            return result
        }
        guard let outcome else { return await process.suspendForever() }
        return outcome
    }

    private static func apply(_ kind: SecureStorageOperation.Kind, key: String, data: Data?, accessibility: SecureStorageAccessibility?, to state: inout State) -> Result<Data?, SecureStorageError> {
        if let index = state.faults.firstIndex(where: { $0.kind == nil || $0.kind == kind }) {
            let code = state.faults[index].code
            state.faults[index].remaining -= 1
            if state.faults[index].remaining <= 0 { state.faults.remove(at: index) }
            return .failure(SecureStorageError(code, context: "injected"))
        }
        let locked = SecureStorageError(.deviceLocked, context: "device locked (\(state.lockState.rawValue))")
        switch kind {
        case .read:
            guard state.lockState != .beforeFirstUnlock else { return .failure(locked) }
            guard let item = state.items[key] else { return .success(nil) }
            guard accessible(item.accessibility, state.lockState) else { return .failure(locked) }
            return .success(item.data)
        case .write:
            let accessibility = accessibility ?? .whenUnlocked
            guard accessible(accessibility, state.lockState) else { return .failure(locked) }
            if let existing = state.items[key], !accessible(existing.accessibility, state.lockState) { return .failure(locked) }
            state.items[key] = Item(data: data ?? Data(), accessibility: accessibility)
            return .success(nil)
        case .delete:
            if let existing = state.items[key], !accessible(existing.accessibility, state.lockState) { return .failure(locked) }
            state.items[key] = nil
            return .success(nil)
        }
    }

    private static func accessible(_ accessibility: SecureStorageAccessibility, _ lockState: LockState) -> Bool {
        switch accessibility {
        case .afterFirstUnlock: lockState != .beforeFirstUnlock
        case .whenUnlocked: lockState == .unlocked
        }
    }
}

private struct ProcessSecureStorage: SecureStorage {
    let storage: InMemorySecureStorage
    let process: ProcessHandle

    func read(_ key: String) async throws(SecureStorageError) -> Data? {
        try await storage.perform(.read, key: key, data: nil, accessibility: nil, process: process).get()
    }

    func write(_ data: Data, for key: String, accessibility: SecureStorageAccessibility) async throws(SecureStorageError) {
        _ = try await storage.perform(.write, key: key, data: data, accessibility: accessibility, process: process).get()
    }

    func delete(_ key: String) async throws(SecureStorageError) {
        _ = try await storage.perform(.delete, key: key, data: nil, accessibility: nil, process: process).get()
    }
}
