import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 9: sign-out blocks new requests and clears sensitive state at once; remote revocation is
/// attempted and, offline, queued in secure storage (refresh token only), survives process death and is
/// retried later, while the app already behaves signed out.
@Suite("Sign-out blocks, clears and revokes", .timeLimit(.minutes(10)))
struct SignOutTests {
    @Test("Sign-out blocks requests at once, clears storage and cache, and revokes the refresh token")
    func signOutOnline() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        _ = try await process.client.fetch("inbox")
        let refreshToken = try #require(world.tokens(.refresh).last)

        await process.client.signOut()

        let requestsAfter = world.trace.requests(.resources).count
        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .notAuthenticated)
        #expect(world.trace.requests(.resources).count == requestsAfter)
        #expect(world.storedRecord?.account == nil)
        #expect(!world.preferences.contents.keys.contains { $0.hasPrefix("cache/acct-A/") })
        #expect(world.trace.signInPrompts == [.noStoredSession, .signedOut])
        await world.trace.waitForLog("revocation.succeeded")
        #expect(world.requests(withBodyContaining: refreshToken, .revoke).count == 1)
        #expect(world.server.isFamilyRevoked(ofRefreshToken: refreshToken))
        #expect(world.secureStorage.items[Fixture.recordKey] == nil)
    }

    @Test("Requests waiting when the user signs out are cancelled with a clear error")
    func pendingRequestsCancelled() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.transport.hold(.refresh, count: 1)
        let waiting = startFetch(process.client, "inbox")
        await world.transport.waitForHeld(.refresh)

        await process.client.signOut()

        #expect(await errorCode(of: waiting) == .sessionEnded)
        #expect(world.trace.transitions.last?.id == .signOutDuringRefresh)
    }

    @Test("Offline sign-out queues the revocation, survives process death, and revokes once online")
    func offlineSignOutQueuesRevocation() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        let accessToken = try #require(world.tokens(.access).last)
        let refreshToken = try #require(world.tokens(.refresh).last)
        world.transport.setOnline(false)

        await process.client.signOut()
        await world.trace.waitForLog("revocation.deferred")

        #expect(await process.client.snapshot.phase == .signedOut)
        #expect(world.trace.signInPrompts.last == .signedOut)
        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .notAuthenticated)
        let record = try #require(world.storedRecord)
        #expect(record.account == nil)
        #expect(record.pendingRevocations == [refreshToken])
        #expect(!record.raw.contains(accessToken), "only the refresh token is kept, for the revocation")
        #expect(!world.preferences.contents.values.contains { String(decoding: $0, as: UTF8.self).contains(refreshToken) })

        world.kill(process)
        let relaunched = world.startProcess()
        #expect(await relaunched.client.launch().phase == .signedOut)
        await world.trace.waitForLog("revocation.deferred", count: 2)
        #expect(world.server.isRefreshTokenActive(refreshToken))

        world.transport.setOnline(true)
        await relaunched.client.networkDidBecomeAvailable()
        await world.trace.waitForLog("revocation.succeeded")
        #expect(world.server.isFamilyRevoked(ofRefreshToken: refreshToken))
        #expect(world.secureStorage.items[Fixture.recordKey] == nil)
    }

    @Test("A queued revocation is retried with backoff on the virtual clock")
    func revocationRetriedWithBackoff() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(.withoutRequestDeadline)
        let refreshToken = try #require(world.tokens(.refresh).last)
        world.server.inject(.status(503), on: .revoke)

        await process.client.signOut()
        await world.trace.waitForLog("revocation.deferred")
        await world.trace.waitForSleeps(count: 1)
        world.clock.advanceToNextDeadline()
        await world.trace.waitForLog("revocation.succeeded")

        #expect(world.requests(withBodyContaining: refreshToken, .revoke).count == 2)
        #expect(world.server.isFamilyRevoked(ofRefreshToken: refreshToken))
    }
}
