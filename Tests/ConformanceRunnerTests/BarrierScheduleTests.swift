import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing

/// The world's order of answers under a `schedule` step: shuffled per batch, or by task priority (PCT).
@Suite("Barrier schedules: random and priority-based")
struct BarrierScheduleTests {
    /// One HTTP effect per command of a round, in canonical order.
    static func batch(round: Int, causes: [String]) -> [AdapterMessage] {
        causes.map { .http(id: "e\(round)-\($0)", cause: $0, HTTPRequestMessage(method: "GET", path: "/resources/feed")) }
    }

    static func order(_ plan: [AdapterMessage]) -> [String] {
        plan.compactMap { if case .http(_, let cause, _) = $0 { cause } else { nil } }
    }

    @Test("a priority schedule without change points answers the same tasks in the same order every round")
    func priorityOrderIsStable() {
        let causes = ["c1", "c2", "c3", "c4"]
        for seed in UInt64(1)...20 {
            let schedule = BarrierSchedule(BarrierScheduleSettings(seed: seed, delayPercent: 0, priorityChanges: 0))
            let first = Self.order(schedule.plan(Self.batch(round: 1, causes: causes)))
            #expect(Set(first) == Set(causes))
            for round in 2...8 {
                #expect(Self.order(schedule.plan(Self.batch(round: round, causes: causes))) == first)
            }
        }
        // A shuffle does not keep one order: over a few seeds some round differs from the first.
        let shuffledVaries = (UInt64(1)...20).contains { seed in
            let schedule = BarrierSchedule(BarrierScheduleSettings(seed: seed, delayPercent: 0))
            let first = Self.order(schedule.plan(Self.batch(round: 1, causes: causes)))
            return (2...8).contains { Self.order(schedule.plan(Self.batch(round: $0, causes: causes))) != first }
        }
        #expect(shuffledVaries)
    }

    @Test("only the lowest-priority task of a batch has its replies held over, and a held reply comes back next round")
    func onlyTheLowestPriorityTaskWaits() throws {
        let causes = ["c1", "c2", "c3"]
        let schedule = BarrierSchedule(BarrierScheduleSettings(seed: 5, delayPercent: 100, priorityChanges: 0))
        let reference = BarrierSchedule(BarrierScheduleSettings(seed: 5, delayPercent: 0, priorityChanges: 0))
        let ranking = Self.order(reference.plan(Self.batch(round: 1, causes: causes)))
        let answered = Self.order(schedule.plan(Self.batch(round: 1, causes: causes)))
        #expect(answered == Array(ranking.dropLast()))
        #expect(schedule.hasCarried)
        let next = Self.order(schedule.plan([]))
        #expect(next == [try #require(ranking.last)])
        // A batch of one task is never starved.
        let alone = BarrierSchedule(BarrierScheduleSettings(seed: 5, delayPercent: 100, priorityChanges: 0))
        #expect(Self.order(alone.plan(Self.batch(round: 1, causes: ["c1"]))) == ["c1"])
    }

    @Test("at a change point the task about to be answered first drops to the lowest priority")
    func changePointDemotesTheFirstTask() throws {
        let causes = ["c1", "c2", "c3"]
        // With change points among the first 40 rounds, some round's order differs from the one before it by
        // moving its first task to the end; no other kind of change happens.
        let schedule = BarrierSchedule(BarrierScheduleSettings(seed: 11, delayPercent: 0, priorityChanges: 3))
        var previous = Self.order(schedule.plan(Self.batch(round: 1, causes: causes)))
        var changes = 0
        for round in 2...BarrierSchedule.changeHorizon {
            let now = Self.order(schedule.plan(Self.batch(round: round, causes: causes)))
            if now != previous {
                #expect(now == Array(previous.dropFirst()) + [previous[0]], "round \(round): \(previous) -> \(now)")
                changes += 1
            }
            previous = now
        }
        #expect((1...3).contains(changes))
    }

    @Test("the same priority schedule plays the same way every time")
    func prioritySchedulesAreDeterministic() {
        func play() -> [[String]] {
            let schedule = BarrierSchedule(BarrierScheduleSettings(seed: 42, delayPercent: 50, priorityChanges: 2))
            return (1...12).map { Self.order(schedule.plan(Self.batch(round: $0, causes: ["c\($0 % 4)", "c\($0 % 3 + 4)", "c9"]))) }
        }
        #expect(play() == play())
    }
}
