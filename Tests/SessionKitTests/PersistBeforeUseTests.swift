import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 3: the new pair is written to secure storage as one unit before the shared refresh resolves
/// and before any request uses it; the rotated refresh token is never sent again; process death at any
/// point of the refresh leaves a usable session.
@Suite("New tokens are persisted before use", .timeLimit(.minutes(10)))
struct PersistBeforeUseTests {
    @Test("The pair is written as one item, and nothing uses it until the write completes")
    func writtenAsOneUnitBeforeUse() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.secureStorage.holdNext(.write)
        let tasks = (0..<3).map { _ in startFetch(process.client, "inbox") }
        let held = await world.secureStorage.waitForHeld(.write)

        let newAccess = try #require(world.tokens(.access).last)
        let newRefresh = try #require(world.tokens(.refresh).last)
        #expect(world.requests(bearing: newAccess).isEmpty, "no request uses the pair before it is stored")
        #expect(!world.trace.transitions.contains { $0.id == .refreshSucceeded }, "the shared refresh has not resolved")

        world.secureStorage.releaseHeld(held)
        for task in tasks { _ = try await content(of: task) }

        let refreshWrites = world.trace.secureStorageOperations.filter { $0.kind == .write && $0.data.map { String(decoding: $0, as: UTF8.self).contains(newAccess) } == true }
        #expect(refreshWrites.count == 1)
        let written = try #require(refreshWrites.first?.data.map { String(decoding: $0, as: UTF8.self) })
        #expect(written.contains(newRefresh), "both tokens in the same item")
        #expect(Set(world.secureStorage.items.keys) == [Fixture.recordKey], "one item, never one per token")
        let writeIndex = world.sequence { if case .secureStorage(let op) = $0.event { op.kind == .write && op.data.map { String(decoding: $0, as: UTF8.self).contains(newAccess) } == true } else { false } }
        let firstUse = world.sequence { if case .httpRequest(_, let request) = $0.event { request.header("Authorization") == "Bearer \(newAccess)" } else { false } }
        let resolved = world.sequence { $0.isTransition(.refreshSucceeded) }
        #expect(writeIndex < resolved && resolved < firstUse)
    }

    @Test("A rotated refresh token is discarded and never sent again")
    func rotatedTokenNeverReused() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        let firstRefresh = try #require(world.tokens(.refresh).first)
        for _ in 0..<3 {
            world.server.expireAccessTokens()
            _ = try await process.client.fetch("inbox")
        }
        #expect(world.server.requestCount(.refresh) == 3)
        #expect(world.requests(withBodyContaining: firstRefresh, .refresh).count == 1)
        let issued = world.tokens(.refresh)
        for (index, token) in issued.enumerated() where index < issued.count - 1 {
            #expect(world.requests(withBodyContaining: token, .refresh).count == 1, "refresh token \(index) sent once")
        }
        #expect(world.storedRecord?.refreshToken == issued.last)
        #expect(world.storedRecord?.raw.contains(firstRefresh) == false)
    }

    @Test("Killed between the refresh response and the write: relaunch recovers within the reuse window")
    func killBeforeWrite() async throws {
        let world = TestWorld.standard(server: .init(refreshReuseInterval: .seconds(60)))
        let first = try await world.signedInProcess()
        let storedBefore = world.storedRecord?.refreshToken
        world.server.expireAccessTokens()
        world.secureStorage.holdNext(.write)
        _ = startFetch(first.client, "inbox")
        let held = await world.secureStorage.waitForHeld(.write)
        world.kill(first)
        world.secureStorage.releaseHeld(held)
        #expect(world.storedRecord?.refreshToken == storedBefore, "the killed process's write never lands")

        let second = world.startProcess()
        #expect(await second.client.launch().phase == .authenticated)
        #expect(try await second.client.fetch("inbox").account == Fixture.alice.id)
        #expect(world.storedRecord?.refreshToken == world.tokens(.refresh).last)
    }

    @Test("Killed after the write, before the retried request: relaunch uses the new pair without refreshing")
    func killAfterWrite() async throws {
        let world = TestWorld.standard()
        let first = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.transport.hold(.resources, count: 2)
        _ = startFetch(first.client, "inbox")
        let original = try #require(await world.transport.waitForHeld(.resources).first)
        world.transport.release(original.exchange)
        await world.transport.waitForHeld(.resources, count: 2)
        world.kill(first)

        let refreshes = world.server.requestCount(.refresh)
        let second = world.startProcess()
        #expect(await second.client.launch().phase == .authenticated)
        #expect(world.server.requestCount(.refresh) == refreshes)
        let newAccess = try #require(world.tokens(.access).last)
        #expect(world.requests(bearing: newAccess, .profile).count == 1)
    }
}
