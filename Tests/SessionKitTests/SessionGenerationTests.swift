import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 6: the generation increments on sign-out and account switch; every request, response and
/// refresh result is tagged; results of an older generation are never written to storage, cache or UI.
@Suite("Session generation discards stale results", .timeLimit(.minutes(10)))
struct SessionGenerationTests {
    @Test("The generation increments on sign-out and on account switch")
    func generationIncrements() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        let signedIn = await process.client.snapshot.generation
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        let switched = try #require(world.trace.transitions.first { $0.id == .accountSwitch })
        #expect(switched.generation > signedIn)
        let afterSwitch = await process.client.snapshot.generation
        await process.client.signOut()
        let signedOut = try #require(world.trace.transitions.last)
        #expect(signedOut.id == .signOut)
        #expect(signedOut.generation > afterSwitch)
        expectValidTransitionChain(world.trace)
    }

    @Test("Account A's late response after switching to B is discarded")
    func lateResponseOfADiscarded() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.transport.hold(.path("/resources/inbox"), at: .afterServer, count: 1)
        let lateA = startFetch(process.client, "inbox")
        let held = try #require(await world.transport.waitForHeld(.resources).first)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        let switchIndex = world.sequence { $0.isTransition(.accountSwitch) }

        #expect(await errorCode(of: lateA) == .sessionEnded, "cancelled by the switch")
        world.transport.release(held.exchange)
        let exchange = held.exchange
        await world.trace.waitUntil { if case .httpReply(exchange, _) = $0.event { true } else { false } }
        _ = try await process.client.fetch("news")

        #expect(world.trace.shownContent.allSatisfy { $0.account != Fixture.alice.id })
        let writesAfterSwitch = world.trace.entries.filter { entry in
            guard entry.sequence > switchIndex, case .preferences(let op) = entry.event else { return false }
            return op.kind == .set && op.key.contains("acct-A")
        }
        #expect(writesAfterSwitch.isEmpty)
        #expect(try await process.client.fetch("inbox").account == Fixture.bob.id)
    }

    @Test("Account A's late refresh result after B signed in is never stored or used")
    func lateRefreshOfADiscarded() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.transport.hold(.refresh, at: .afterServer, count: 1)
        let waitingA = startFetch(process.client, "inbox")
        let held = try #require(await world.transport.waitForHeld(.refresh).first)
        let aNewAccess = try #require(world.tokens(.access).last)
        let aNewRefresh = try #require(world.tokens(.refresh).last)

        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        #expect(await errorCode(of: waitingA) == .sessionEnded)
        world.transport.release(held.exchange)
        await world.trace.waitForLog("refresh.stale-result-discarded")

        let written = world.trace.secureStorageOperations.compactMap { $0.data.map { String(decoding: $0, as: UTF8.self) } }
        #expect(!written.contains { $0.contains(aNewAccess) || $0.contains(aNewRefresh) })
        #expect(world.storedRecord?.account == Fixture.bob.id)
        #expect(world.requests(bearing: aNewAccess).isEmpty)
        #expect(!world.trace.transitions.contains { $0.id == .refreshSucceeded })
        #expect(await process.client.snapshot.account == Fixture.bob.id)
    }

    @Test("A's late 401 after the switch does not start a refresh for B")
    func stale401DoesNotRefresh() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.transport.hold(.path("/resources/news"), at: .afterServer, count: 1)
        let lateA = startFetch(process.client, "news")
        let held = try #require(await world.transport.waitForHeld(.resources).first)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)

        world.transport.release(held.exchange, with: .response(HTTPResponse(status: 401)))
        _ = try await process.client.fetch("news")

        #expect(await errorCode(of: lateA) == .sessionEnded)
        #expect(world.server.requestCount(.refresh) == 0)
        #expect(await process.client.snapshot.phase == .authenticated)
    }
}
