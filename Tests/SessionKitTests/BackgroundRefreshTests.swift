import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 12: tokens background work needs are stored after-first-unlock; a locked device defers the
/// refresh and does not sign out.
@Suite("Background refresh survives a locked device", .timeLimit(.minutes(10)))
struct BackgroundRefreshTests {
    @Test("Every token write uses the after-first-unlock accessibility class")
    func afterFirstUnlock() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        _ = try await process.client.fetch("inbox")
        let writes = world.trace.secureStorageOperations.filter { $0.kind == .write }
        #expect(writes.count == 2)
        #expect(writes.allSatisfy { $0.accessibility == .afterFirstUnlock })
    }

    @Test("On a locked device (after first unlock) background refresh renews and stores the pair")
    func lockedDeviceRefreshes() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(SessionConfiguration(backgroundRefreshWindow: .seconds(60)))
        world.secureStorage.setLockState(.locked)
        #expect(await process.client.performBackgroundRefresh() == .notNeeded)

        world.clock.advance(by: .seconds(250))
        #expect(await process.client.performBackgroundRefresh() == .refreshed)
        #expect(world.storedRecord?.accessToken == world.tokens(.access).last)
        #expect(await process.client.snapshot.phase == .authenticated)
    }

    @Test("Before first unlock, background work defers and never signs out")
    func beforeFirstUnlockDefers() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess())
        world.secureStorage.setLockState(.beforeFirstUnlock)
        let process = world.startProcess()
        let launch = Task { await process.client.launch() }
        await world.trace.waitForLog("restore.deferred")

        #expect(await process.client.performBackgroundRefresh() == .deferred(.storageLocked))
        #expect(world.transitions(of: process).isEmpty)
        #expect(world.trace.signInPrompts == [.noStoredSession])

        world.secureStorage.setLockState(.locked)
        await process.client.deviceDidUnlock()
        #expect(await finished(launch).phase == .authenticated)
    }

    @Test("With when-unlocked items a locked device defers the refresh, keeps the session, and finishes on unlock")
    func whenUnlockedDefers() async throws {
        let configuration = SessionConfiguration(credentialAccessibility: .whenUnlocked, requestDeadline: nil)
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(configuration)
        world.secureStorage.setLockState(.locked)
        world.clock.advance(by: .seconds(200))
        let mark = world.trace.mark

        #expect(await process.client.performBackgroundRefresh() == .deferred(.storageLocked))
        #expect(await process.client.snapshot.phase == .authenticated)
        #expect(!world.trace.transitions(since: mark).contains { $0.to == .signedOut })
        #expect(world.server.requestCount(.refresh) == 1)

        world.secureStorage.setLockState(.unlocked)
        await world.trace.waitForSleeps(count: 1)
        await process.client.deviceDidUnlock()
        await world.trace.waitForTransition(.refreshSucceeded)
        #expect(world.server.requestCount(.refresh) == 1, "the received pair is written, the rotated token not sent again")
        #expect(world.storedRecord?.refreshToken == world.tokens(.refresh).last)
    }
}
