import ConformanceProtocol
import SimulatedWorld
import SpecModel

/// The world's choices at each barrier under a `schedule` step: the order a batch of concurrent effects is
/// answered in, and which HTTP replies wait one more round. Every choice comes from the step's seed, so a case
/// with the same steps and seed plays the same way every time.
///
/// `strategy: random` shuffles each batch. `strategy: pct` is priority-based, in the spirit of PCT (Burckhardt et
/// al., as in Coyote): each task (the command or key an effect serves) gets a random priority when first seen,
/// every batch is answered highest priority first, the lowest-priority task's HTTP replies are the ones held
/// over, and at `changes` rounds drawn up front the task about to be answered first drops to the lowest
/// priority. A bug that needs a few tasks in one order at a few points is found with a probability bounded
/// below, where a shuffle of every batch spreads its chances over every order.
final class BarrierSchedule {
    private var random: SeededRandom
    private let delayPercent: Int
    /// HTTP effects held over from the previous round; each is held over at most once.
    private var carried: [AdapterMessage] = []
    /// `pct` only: each task's priority (higher answered first), the rounds at which the first task drops to the
    /// lowest, the lowest priority given so far, and the rounds planned.
    private let priorityBased: Bool
    private var priorities: [String: Int64] = [:]
    private var changeRounds: Set<Int> = []
    private var lowest: Int64 = 0
    private var round = 0

    /// The rounds a `pct` schedule's change points are drawn from: the barriers of a generated run, about.
    static let changeHorizon = 40

    init(_ settings: BarrierScheduleSettings) {
        random = SeededRandom(seed: settings.seed)
        delayPercent = settings.delayPercent
        priorityBased = settings.priorityChanges != nil
        for _ in 0..<(settings.priorityChanges ?? 0) {
            changeRounds.insert(1 + Int(random.next() % UInt64(Self.changeHorizon)))
        }
    }

    /// Whether effects wait for the next round: the driver must not call the client idle yet.
    var hasCarried: Bool { !carried.isEmpty }

    /// The effects to answer this round, in the schedule's order: last round's held-over effects and this
    /// round's (given in canonical order), ordered by the strategy; some of this round's HTTP effects are kept
    /// for the next.
    func plan(_ canonical: [AdapterMessage]) -> [AdapterMessage] {
        priorityBased ? planByPriority(canonical) : planShuffled(canonical)
    }

    private func planShuffled(_ canonical: [AdapterMessage]) -> [AdapterMessage] {
        var now = carried
        carried = []
        for effect in canonical {
            if case .http = effect, delayPercent > 0, Int(random.next() % 100) < delayPercent {
                carried.append(effect)
            } else {
                now.append(effect)
            }
        }
        // Fisher-Yates with our own draws, so the order does not depend on the standard library's shuffle.
        var index = now.count - 1
        while index > 0 {
            let other = Int(random.next() % UInt64(index + 1))
            now.swapAt(index, other)
            index -= 1
        }
        return now
    }

    private func planByPriority(_ canonical: [AdapterMessage]) -> [AdapterMessage] {
        round += 1
        for effect in carried + canonical where priorities[Self.task(of: effect)] == nil {
            // Random priorities above every demoted one; ties broken by canonical order below.
            priorities[Self.task(of: effect)] = Int64(random.next() % (1 << 40)) + 1
        }
        func priority(_ effect: AdapterMessage) -> Int64 { priorities[Self.task(of: effect)] ?? 0 }
        if changeRounds.contains(round), let first = (carried + canonical).max(by: { priority($0) < priority($1) }) {
            lowest -= 1
            priorities[Self.task(of: first)] = lowest
        }
        var now = carried
        carried = []
        // The lowest-priority task of the batch waits (its HTTP replies held over), when it is not the only one.
        let tasks = Set(canonical.map(Self.task(of:)))
        let starved = tasks.count > 1 ? canonical.min(by: { priority($0) < priority($1) }).map(Self.task(of:)) : nil
        for effect in canonical {
            if case .http = effect, Self.task(of: effect) == starved, delayPercent > 0, Int(random.next() % 100) < delayPercent {
                carried.append(effect)
            } else {
                now.append(effect)
            }
        }
        return now.enumerated().sorted { (priority($0.element), -$0.offset) > (priority($1.element), -$1.offset) }.map(\.element)
    }

    /// The task an effect serves: the command (or refresh) that caused an HTTP request, the key of a storage
    /// change, or the sleep.
    private static func task(of effect: AdapterMessage) -> String {
        switch effect {
        case .http(_, let cause, let request): cause.map { "cause:" + $0 } ?? "http:" + request.path
        case .storage(_, _, let key, _, _): "storage:" + key
        case .preferences(_, _, let key, _): "preferences:" + key
        case .sleep: "sleep"
        default: "other"
        }
    }

    /// The client abandoned an effect held over: it is not answered next round.
    func drop(effectID id: String) { carried.removeAll { $0.effectID == id } }

    /// The process died: what it asked for is gone with it.
    func dropCarried() { carried = [] }
}
