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

/// A clear of A's cache that preferences refuse: the entries stay hidden from everyone, the session-end marker
/// stays for them (written again when its own write was refused), and the next launch finishes the clear.
@Suite("A refused cache clear is finished later", .timeLimit(.minutes(10)))
struct RefusedCacheClearTests {
    static let offlineInbox = SessionConfiguration(offlinePolicy: OfflinePolicy(cachedResources: ["inbox"]))

    static func aliceKeys(_ world: TestWorld) -> [String] {
        world.preferences.contents.keys.filter { $0.hasPrefix("cache/acct-A/") }.sorted()
    }

    @Test("A switch whose marker write and cache removal are refused keeps A's cache from B and a marker; the next launch clears both")
    func refusedClearFinishedAtNextLaunch() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(Self.offlineInbox)
        _ = try await process.client.fetch("inbox")
        world.preferences.failNext(nil, count: 2)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)

        // The entry could not go, so neither did the index that lists it; the marker was written again.
        #expect(Self.aliceKeys(world) == ["cache/acct-A/.index", "cache/acct-A/inbox"])
        #expect(world.preferences.contents["session/ending"].map { String(decoding: $0, as: UTF8.self).contains("acct-A") } == true)
        world.transport.setOnline(false)
        if case .success(let content) = await outcome(of: startFetch(process.client, "inbox")) {
            Issue.record("B was served \(content.account)'s cache")
        }

        world.kill(process)
        world.transport.setOnline(true)
        let next = world.startProcess(configuration: Self.offlineInbox)
        #expect(await next.client.launch().account == Fixture.bob.id)
        #expect(Self.aliceKeys(world).isEmpty)
        #expect(world.preferences.contents["session/ending"] == nil)
    }

    @Test("An end that finished while only another account's clear is owed leaves a marker naming that account alone")
    func markerOfAFinishedEndNamesOnlyTheOwedAccount() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(Self.offlineInbox)
        _ = try await process.client.fetch("inbox")
        world.preferences.failNext(.remove, count: 1)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        _ = try await process.client.fetch("inbox")
        // B's end succeeds in full; the retry of A's clear at it is refused again.
        world.preferences.failNext(.remove, count: 1)
        _ = try await process.client.switchAccount(email: Fixture.alice.email, password: Fixture.alice.password)

        #expect(world.preferences.contents.keys.filter { $0.hasPrefix("cache/acct-B/") }.isEmpty)
        let marker = try #require(world.preferences.contents["session/ending"].map { String(decoding: $0, as: UTF8.self) })
        #expect(marker.contains("acct-A") && !marker.contains("acct-B") && !marker.contains("sessionID"), "\(marker)")

        world.kill(process)
        let next = world.startProcess(configuration: Self.offlineInbox)
        #expect(await next.client.launch().account == Fixture.alice.id)
        #expect(Self.aliceKeys(world).isEmpty)
        #expect(world.preferences.contents["session/ending"] == nil)
    }

    @Test("A failed end applied by a later write keeps the marker while A's cache clear is still owed")
    func vaultFinishingAnEndKeepsTheMarkerWhileAClearIsOwed() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(Self.offlineInbox)
        _ = try await process.client.fetch("inbox")
        // The end's write of the record (which keeps A's refresh token for revocation) and its retry fail; the
        // cache removal fails at the switch and again when B's sign-in write applies the pending end.
        world.secureStorage.failNext(.write, with: .unavailable, count: 2)
        world.preferences.failNext(.remove, count: 2)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)

        #expect(Self.aliceKeys(world) == ["cache/acct-A/.index", "cache/acct-A/inbox"])
        #expect(world.preferences.contents["session/ending"] != nil)

        world.kill(process)
        let next = world.startProcess(configuration: Self.offlineInbox)
        #expect(await next.client.launch().account == Fixture.bob.id)
        #expect(Self.aliceKeys(world).isEmpty)
        #expect(world.preferences.contents["session/ending"] == nil)
    }
}
