import ConformanceProtocol
@testable import ConformanceRunner
import SpecModel
import Testing

/// A storage change takes effect when the runner receives it (docs/adapter-protocol.md): changes sent in one round
/// are applied in the order they arrived, which is the order the trace shows, whatever order the world answers them in.
@Suite("Storage changes of one round take effect in arrival order")
struct StorageArrivalOrderTests {
    /// On `launch`, sends six storage effects at once without waiting for a reply, then answers the command once all
    /// are replied to. The canonical order would apply the secure `set` before the `delete` sent ahead of it, and the
    /// preferences `delete` before the `set` sent ahead of it.
    /// Used by one driver on one thread; Sendable only to be handed to the launcher.
    final class ConcurrentWrites: InProcessClient, @unchecked Sendable {
        static let batch: [AdapterMessage] = [
            .storage(id: "e1", operation: .delete, key: "session", value: nil, accessibility: nil),
            .storage(id: "e2", operation: .set, key: "session", value: "kept", accessibility: .afterFirstUnlock),
            .preferences(id: "e3", operation: .set, key: "cache/alice", value: "news"),
            .preferences(id: "e4", operation: .delete, key: "cache/alice", value: nil),
            .preferences(id: "e5", operation: .set, key: "note", value: "written"),
            .preferences(id: "e6", operation: .get, key: "note", value: nil),
        ]
        private var command: String?
        private var waiting: Set<String> = []
        var replies: [String: ReplyBody] = [:]

        func start() -> [AdapterMessage] {
            [.hello(protocolVersion: adapterProtocolVersion, implementation: ImplementationInfo(name: "concurrent writes", version: "1",
                                                                                               language: "swift", platform: "test"),
                    capabilities: [])]
        }

        func handle(_ message: RunnerMessage) -> [AdapterMessage] {
            switch message {
            case .command(let command):
                self.command = command.id
                waiting = Set(Self.batch.compactMap(\.effectID))
                return Self.batch
            case .reply(let id, let body):
                replies[id] = body
                waiting.remove(id)
                guard waiting.isEmpty, let command else { return [] }
                self.command = nil
                return [.result(CommandResult(id: command))]
            case .barrier(let id, _):
                return [.barrier(id: id)]
            default:
                return []
            }
        }
    }

    static func play(schedule: BarrierScheduleSettings?) throws -> (ClientDriver, ConcurrentWrites) {
        let client = ConcurrentWrites()
        let driver = ClientDriver(launcher: InProcessLauncher(description: "concurrent writes") { client }, seed: 1)
        driver.schedule = schedule.map(BarrierSchedule.init)
        try driver.launch()
        return (driver, client)
    }

    @Test("secure storage and preferences end as the changes were sent, and a get reads the set sent before it")
    func canonicalOrderAppliesInArrivalOrder() throws {
        let (driver, client) = try Self.play(schedule: nil)
        #expect(driver.world.storage.secure["session"]?.value == "kept")
        #expect(driver.world.storage.preferences["cache/alice"] == nil)
        #expect(client.replies["e6"] == .value("written"))
        let received = driver.trace.events.compactMap { event -> String? in
            if case .received(let message) = event.kind { return message.effectID }
            return nil
        }
        #expect(received == ["e1", "e2", "e3", "e4", "e5", "e6"], "the trace shows the changes in the order they were applied")
    }

    @Test("a schedule reorders the replies, never the changes", arguments: UInt64(1)...12)
    func scheduleReordersRepliesOnly(seed: UInt64) throws {
        let strategy: Int? = seed % 2 == 0 ? 2 : nil
        let (driver, client) = try Self.play(schedule: BarrierScheduleSettings(seed: seed, delayPercent: 0, priorityChanges: strategy))
        #expect(driver.world.storage.secure["session"]?.value == "kept")
        #expect(driver.world.storage.preferences["cache/alice"] == nil)
        #expect(driver.world.storage.preferences["note"] == "written")
        #expect(client.replies["e6"] == .value("written"))
    }
}
