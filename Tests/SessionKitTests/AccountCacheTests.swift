import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 7: caches are keyed by account ID, not only by path; after a switch nothing of A is visible.
@Suite("Caches are keyed by account", .timeLimit(.minutes(10)))
struct AccountCacheTests {
    @Test("Entries are stored under the account and A's are removed on switch")
    func keyedByAccountAndClearedOnSwitch() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        _ = try await process.client.fetch("inbox")
        #expect(world.preferences.contents.keys.contains("cache/acct-A/inbox"))

        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        _ = try await process.client.fetch("inbox")

        let keys = Set(world.preferences.contents.keys)
        #expect(keys.contains("cache/acct-B/inbox"))
        #expect(!keys.contains { $0.hasPrefix("cache/acct-A/") })
    }

    @Test("Offline, B never gets A's cached content for the same path")
    func offlineNeverServesAnotherAccount() async throws {
        let configuration = SessionConfiguration(offlinePolicy: OfflinePolicy(cachedResources: ["inbox"]))
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(configuration)
        _ = try await process.client.fetch("inbox")
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        world.transport.setOnline(false)

        let result = await outcome(of: startFetch(process.client, "inbox"))

        if case .failure(let error) = result { #expect(error.failureClass == .offline) } else { Issue.record("B was served A's cache") }
        #expect(world.trace.shownContent.filter { $0.origin != .network }.isEmpty)
    }

    @Test("Offline, an account gets its own cached content when the policy allows it")
    func offlineServesOwnCache() async throws {
        let configuration = SessionConfiguration(offlinePolicy: OfflinePolicy(cachedResources: ["inbox"]))
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(configuration)
        _ = try await process.client.fetch("inbox")
        _ = try await process.client.fetch("secrets")
        world.transport.setOnline(false)

        let inbox = try await process.client.fetch("inbox")
        #expect(inbox.origin == .offlineCache)
        #expect(inbox.account == Fixture.alice.id)
        #expect(await errorCode(of: startFetch(process.client, "secrets")) == .transportFailure)
    }

    @Test("After a switch every shown item belongs to B, and A's content was cleared from screen")
    func nothingOfAVisibleAfterSwitch() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        _ = try await process.client.fetch("inbox")
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        let switched = world.sequence { $0.isTransition(.accountSwitch) }
        _ = try await process.client.fetch("inbox")
        _ = try await process.client.fetch("news")

        let cleared = world.sequence { if case .ui(.contentCleared(Fixture.alice.id)) = $0.event { true } else { false } }
        #expect(cleared > switched && cleared < Int.max)
        let shownAfter = world.trace.entries.filter { $0.sequence > switched }.compactMap { entry -> ResourceContent? in
            if case .ui(.contentShown(let content)) = entry.event { content } else { nil }
        }
        #expect(shownAfter.count == 2)
        #expect(shownAfter.allSatisfy { $0.account == Fixture.bob.id && String(decoding: $0.body, as: UTF8.self).contains("acct-B") })
    }
}
