import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 1: launch goes through `restoring`; a stored token is not enough; locked storage keeps
/// restoring; no private content before validation except what the offline policy declares.
@Suite("Launch goes through restoring", .timeLimit(.minutes(10)))
struct RestoreThroughRestoringTests {
    @Test("A stored session is validated with the server before authenticated")
    func storedSessionIsValidatedFirst() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess())
        let process = world.startProcess()
        world.transport.hold(.profile, count: 1)
        let launch = Task { await process.client.launch() }
        let held = try #require(await world.transport.waitForHeld(.profile).first)

        #expect(await process.client.snapshot.phase == .restoring)
        #expect(await process.client.snapshot.account == Fixture.alice.id)
        #expect(world.transitions(of: process).isEmpty)
        let fetch = startFetch(process.client, "inbox")
        await world.trace.waitForLog("request.waiting")
        #expect(world.trace.requests(.resources).isEmpty, "no request before validation")

        world.transport.release(held.exchange)
        #expect(await finished(launch).phase == .authenticated)
        #expect(world.transitions(of: process).map(\.id) == [.restoreValidated])
        let content = try await content(of: fetch)
        #expect(content.account == Fixture.alice.id)
        #expect(world.sequence { $0.isTransition(.restoreValidated) } < world.sequence { if case .ui(.contentShown) = $0.event { true } else { false } })
        expectValidTransitionChain(world.trace)
    }

    @Test("A stored token the server rejects ends signed out, with one prompt and storage cleared")
    func tokenPresenceIsNotEnough() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess())
        world.server.revokeSessions(of: Fixture.alice.id)
        let mark = world.trace.mark
        let process = world.startProcess()

        let snapshot = await process.client.launch()

        #expect(snapshot.phase == .signedOut)
        #expect(world.transitions(of: process).map(\.id) == [.restoreFailed])
        #expect(world.transitions(of: process).first?.failureClass == .invalidGrant)
        #expect(world.trace.shownContent.isEmpty)
        #expect(world.trace.signInPrompts(since: mark) == [.sessionRejected])
        #expect(world.storedRecord?.account == nil)
    }

    @Test("An expired stored access token is refreshed, persisted, then validated")
    func expiredTokenIsRefreshedDuringRestore() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess())
        world.server.expireAccessTokens()
        let process = world.startProcess()

        #expect(await process.client.launch().phase == .authenticated)

        #expect(world.server.requestCount(.refresh) == 1)
        let newAccess = try #require(world.tokens(.access).last)
        #expect(world.storedRecord?.accessToken == newAccess)
        let written = world.sequence { if case .secureStorage(let op) = $0.event { op.kind == .write && op.data.map { String(decoding: $0, as: UTF8.self).contains(newAccess) } == true } else { false } }
        let used = world.sequence { if case .httpRequest(_, let request) = $0.event { request.header("Authorization") == "Bearer \(newAccess)" } else { false } }
        #expect(written < used)
    }

    @Test("No stored session ends signed out with exactly one prompt")
    func noStoredSession() async {
        let world = TestWorld.standard()
        let process = world.startProcess()
        #expect(await process.client.launch().phase == .signedOut)
        #expect(world.transitions(of: process).map(\.id) == [.restoreFailed])
        #expect(world.trace.signInPrompts == [.noStoredSession])
        #expect(world.trace.requests().isEmpty)
    }

    @Test("Locked storage keeps restoring and retries; it is not a sign-out")
    func lockedStorageKeepsRestoring() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess(.withoutRequestDeadline))
        world.secureStorage.setLockState(.beforeFirstUnlock)
        let mark = world.trace.mark
        let process = world.startProcess(configuration: .withoutRequestDeadline)
        let launch = Task { await process.client.launch() }

        await world.trace.waitForLog("restore.deferred")
        await world.trace.waitForSleeps(count: 1)
        world.clock.advanceToNextDeadline()
        await world.trace.waitForLog("restore.deferred", count: 2)

        #expect(await process.client.snapshot.phase == .restoring)
        #expect(world.transitions(of: process).isEmpty)
        #expect(world.trace.signInPrompts(since: mark).isEmpty)
        #expect(world.storedRecord?.account == Fixture.alice.id, "credentials kept")

        world.secureStorage.setLockState(.unlocked)
        await process.client.deviceDidUnlock()
        #expect(await finished(launch).phase == .authenticated)
        #expect(world.transitions(of: process).map(\.id) == [.restoreValidated])
    }

    @Test("An unreachable server at launch keeps restoring until the network is back")
    func offlineLaunchKeepsRestoring() async throws {
        let world = TestWorld.standard()
        world.kill(try await world.signedInProcess(.withoutRequestDeadline))
        world.transport.setOnline(false)
        let mark = world.trace.mark
        let process = world.startProcess(configuration: .withoutRequestDeadline)
        let launch = Task { await process.client.launch() }

        await world.trace.waitForLog("restore.deferred")
        #expect(await process.client.snapshot.phase == .restoring)
        #expect(world.trace.signInPrompts(since: mark).isEmpty)

        world.transport.setOnline(true)
        await world.trace.waitForSleeps(count: 1)
        await process.client.networkDidBecomeAvailable()
        #expect(await finished(launch).phase == .authenticated)
    }

    @Test("Cached private content is not shown while restoring")
    func privateCacheHiddenWhileRestoring() async throws {
        let world = TestWorld.standard()
        let first = try await world.signedInProcess()
        _ = try await first.client.fetch("inbox")
        world.kill(first)
        let shownBefore = world.trace.shownContent.count

        let process = world.startProcess()
        world.transport.hold(.profile, count: 1)
        let launch = Task { await process.client.launch() }
        let held = try #require(await world.transport.waitForHeld(.profile).first)
        let fetch = startFetch(process.client, "inbox")
        await world.trace.waitForLog("request.waiting")
        #expect(world.trace.shownContent.count == shownBefore, "nothing shown before validation")

        world.transport.release(held.exchange)
        _ = await finished(launch)
        #expect(try await content(of: fetch).origin == .network)
    }

    @Test("The declared offline policy shows only its resources before validation")
    func offlinePolicyBeforeValidation() async throws {
        let configuration = SessionConfiguration(offlinePolicy: OfflinePolicy(cachedResources: ["inbox"]))
        let world = TestWorld.standard()
        let first = try await world.signedInProcess(configuration)
        _ = try await first.client.fetch("inbox")
        _ = try await first.client.fetch("secrets")
        world.kill(first)

        let process = world.startProcess(configuration: configuration)
        world.transport.hold(.profile, count: 1)
        let launch = Task { await process.client.launch() }
        let held = try #require(await world.transport.waitForHeld(.profile).first)

        let inbox = try await process.client.fetch("inbox")
        #expect(inbox.origin == .cacheBeforeValidation)
        #expect(inbox.account == Fixture.alice.id)
        let secrets = startFetch(process.client, "secrets")
        await world.trace.waitForLog("request.waiting")
        #expect(!world.trace.shownContent.contains { $0.resource == "secrets" && $0.generation == inbox.generation && $0.origin != .network })

        world.transport.release(held.exchange)
        _ = await finished(launch)
        #expect(try await content(of: secrets).origin == .network)
    }
}
