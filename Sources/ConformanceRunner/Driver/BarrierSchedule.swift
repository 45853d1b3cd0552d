import ConformanceProtocol
import SimulatedWorld
import SpecModel

/// The world's choices at each barrier under a `schedule` step: the order a batch of concurrent effects is
/// answered in, and which HTTP replies wait one more round. Every choice comes from the step's seed, so a case
/// with the same steps and seed plays the same way every time.
final class BarrierSchedule {
    private var random: SeededRandom
    private let delayPercent: Int
    /// HTTP effects held over from the previous round; each is held over at most once.
    private var carried: [AdapterMessage] = []

    init(_ settings: BarrierScheduleSettings) {
        random = SeededRandom(seed: settings.seed)
        delayPercent = settings.delayPercent
    }

    /// Whether effects wait for the next round: the driver must not call the client idle yet.
    var hasCarried: Bool { !carried.isEmpty }

    /// The effects to answer this round, in the schedule's order: last round's held-over effects and this
    /// round's (given in canonical order), shuffled; some of this round's HTTP effects are kept for the next.
    func plan(_ canonical: [AdapterMessage]) -> [AdapterMessage] {
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

    /// The client abandoned an effect held over: it is not answered next round.
    func drop(effectID id: String) { carried.removeAll { $0.effectID == id } }

    /// The process died: what it asked for is gone with it.
    func dropCarried() { carried = [] }
}
