import ConformanceProtocol
import SpecModel

/// The secure-storage and preferences effects of one round (what the client sent between two barriers). A change
/// takes effect when the runner receives it (docs/adapter-protocol.md), so the effects are applied, and each `get`
/// read, in the order they arrived, which is the order the trace shows them in. The round's answer order
/// (canonical, or a schedule's) still decides what answering decides: which change an armed kill point lands on
/// (the first change answered), which changes a storage fault refuses, and when each reply resumes the client.
struct StorageRound {
    enum Answer: Equatable {
        /// The reply to send: a read value, done, or locked.
        case reply(DeviceStorage.Outcome)
        /// A storage fault refused the change; nothing was applied.
        case refused
        /// The armed kill point lands on this change: discarded before it, applied after it; no reply.
        case killPoint
        /// A change after the kill point in answer order: applied (it reached the runner), never answered.
        case appliedUnanswered
    }

    private(set) var answers: [String: Answer] = [:]

    /// Decides in `answerOrder`, then applies in `arrival` order. `killPoint` is the armed kill point, if any.
    init(arrival: [AdapterMessage], answerOrder: [AdapterMessage], killPoint: KillPoint?, world: inout World) {
        var killLanded = false
        for effect in answerOrder {
            guard let change = Self.access(effect), change.isChange else { continue }
            if killLanded {
                answers[change.id] = .appliedUnanswered
            } else if killPoint != nil {
                answers[change.id] = .killPoint
                killLanded = true
            } else if change.secure ? world.takeStorageWriteFailure() : world.takePreferencesWriteFailure() {
                answers[change.id] = .refused
            }
        }
        for effect in arrival {
            guard let change = Self.access(effect) else { continue }
            switch answers[change.id] {
            case .refused: continue
            case .killPoint where killPoint == .beforeStorageWrite: continue
            default: break
            }
            let outcome = change.secure
                ? world.storage.secure(change.operation, key: change.key, value: change.value, accessibility: change.accessibility)
                : world.storage.preference(change.operation, key: change.key, value: change.value)
            if answers[change.id] == nil { answers[change.id] = .reply(outcome) }
        }
    }

    private struct Access {
        let id: String
        let secure: Bool
        let operation: StorageOperation
        let key: String
        let value: String?
        let accessibility: Accessibility?
        var isChange: Bool { operation != .get }
    }

    private static func access(_ effect: AdapterMessage) -> Access? {
        switch effect {
        case .storage(let id, let operation, let key, let value, let accessibility):
            Access(id: id, secure: true, operation: operation, key: key, value: value, accessibility: accessibility)
        case .preferences(let id, let operation, let key, let value):
            Access(id: id, secure: false, operation: operation, key: key, value: value, accessibility: nil)
        default:
            nil
        }
    }
}
