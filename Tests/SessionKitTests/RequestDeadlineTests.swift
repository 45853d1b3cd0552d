import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 4, under a silent server: every HTTP exchange has a deadline on the injected clock
/// (`SessionConfiguration.requestDeadline`), so a refresh the server never answers fails as a timeout: deferred
/// and backed off like any timeout ("Timeouts, 5xx and offline are retryable; keep the session and back off."),
/// and a resource's reply that comes after the deadline is dropped. A refresh's late reply is still awaited (the
/// server may have rotated the token), so the token is not sent again meanwhile.
@Suite("A request deadline: nothing waits forever on a silent server", .timeLimit(.minutes(10)))
struct RequestDeadlineTests {
    /// Alice signed in with an expired access token and the next refresh held by the network; `fetch` waits on it.
    static func heldRefresh(_ configuration: SessionConfiguration = SessionConfiguration()) async throws
        -> (TestWorld, TestProcess, Task<ResourceContent, any Error>, ScriptedTransport.HeldExchange, mark: Int) {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(configuration)
        world.server.expireAccessTokens()
        let mark = world.trace.mark
        world.transport.hold(.refresh, count: 1)
        let fetch = startFetch(process.client, "inbox")
        let held = try #require(await world.transport.waitForHeld(.refresh).first)
        return (world, process, fetch, held, mark)
    }

    /// Waits until the client has armed a deadline (the only sleep pending here).
    static func deadlineArmed(_ world: TestWorld) async {
        while world.clock.nextDeadline == nil { await Task.yield() }
    }

    @Test("A refresh the server never answers fails its waiters as a timeout at the deadline, starts no second refresh while its reply may come, and uses that reply when it comes")
    func silentRefreshTimesOut() async throws {
        let (world, process, fetch, held, _) = try await Self.heldRefresh()
        await Self.deadlineArmed(world)
        #expect(world.clock.nextDeadline == world.clock.now + .seconds(30))
        world.clock.advance(by: .seconds(30))

        guard case .failure(let error) = await outcome(of: fetch) else { Issue.record("the fetch succeeded"); return }
        #expect(error.code == .refreshUnavailable)
        #expect(error.failureClass == .timeout)
        #expect(world.trace.transitions.last?.id == .refreshDeferred)
        #expect(world.trace.transitions.last?.failureClass == .timeout)
        #expect(await process.client.snapshot.phase == .authenticated)
        // The refresh token may have been rotated by the server already: it is not sent again meanwhile.
        guard case .failure(let again) = await outcome(of: startFetch(process.client, "news")) else { Issue.record("the fetch succeeded"); return }
        #expect(again.failureClass == .timeout)
        #expect(world.trace.requests(.refresh).count == 1)

        world.transport.release(held.exchange)
        await world.trace.waitForTransition(.refreshSucceeded)
        #expect(try await process.client.fetch("inbox").account == Fixture.alice.id)
        #expect(world.trace.requests(.refresh).count == 1)
    }

    @Test("Without a deadline (the no-request-deadline defect) a request still waits after the time the deadline would end it")
    func noDeadlineWaits() async throws {
        var configuration = SessionConfiguration()
        configuration.defects = [.noRequestDeadline]
        let (world, _, fetch, held, mark) = try await Self.heldRefresh(configuration)
        world.clock.advance(by: .seconds(3600))
        world.transport.release(held.exchange)
        #expect(await outcome(of: fetch).map(\.account) == .success(Fixture.alice.id))
        #expect(!world.trace.entries.contains { if case .sleep = $0.event { $0.sequence >= mark } else { false } }, "a deadline was armed")
    }
}
