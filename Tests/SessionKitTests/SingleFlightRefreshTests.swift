import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 2: one refresh in flight per account, shared by every caller; each request retried once;
/// an outdated 401 retried with the current token; the refresh never goes through the 401 handling; a
/// cancelled waiter does not cancel the shared refresh.
@Suite("One refresh in flight per account", .timeLimit(.minutes(10)))
struct SingleFlightRefreshTests {
    /// Sends `count` fetches with the (server-expired) access token, holding them until all are at the
    /// server and the refresh until all have joined it, then releases everything.
    private func concurrent401s(_ count: Int) async throws -> (TestWorld, [Result<ResourceContent, SessionError>]) {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        let resourcesHold = world.transport.hold(.resources, count: count)
        world.transport.hold(.refresh, count: 1)
        let tasks = (0..<count).map { _ in startFetch(process.client, "inbox") }

        await world.transport.waitForHeld(.resources, count: count)
        world.transport.removeHold(resourcesHold)
        world.transport.releaseAll(.resources)
        let refresh = try #require(await world.transport.waitForHeld(.refresh).first)
        await world.trace.waitForLog("request.waiting", count: count)
        world.transport.release(refresh.exchange)

        var results: [Result<ResourceContent, SessionError>] = []
        for task in tasks { results.append(await outcome(of: task)) }
        return (world, results)
    }

    @Test("Five concurrent 401s produce one refresh and five successful retries")
    func fiveConcurrent401s() async throws {
        let (world, results) = try await concurrent401s(5)
        #expect(world.server.requestCount(.refresh) == 1)
        #expect(results.allSatisfy { (try? $0.get())?.account == Fixture.alice.id })
        let newAccess = try #require(world.tokens(.access).last)
        #expect(world.requests(bearing: newAccess, .resources).count == 5)
        #expect(world.trace.requests(.resources).count == 10, "each request sent once and retried once")
        expectValidTransitionChain(world.trace)
    }

    @Test("1,000 concurrent 401s produce exactly one refresh and every request completes once")
    func thousandConcurrent401s() async throws {
        let (world, results) = try await concurrent401s(1000)
        #expect(world.server.requestCount(.refresh) == 1)
        #expect(results.count == 1000)
        #expect(results.filter { (try? $0.get()) != nil }.count == 1000)
        #expect(world.trace.requests(.resources).count == 2000)
        #expect(world.trace.transitions.filter { $0.id == .refreshStarted }.count == 1)
        #expect(world.trace.transitions.filter { $0.id == .refreshSucceeded }.count == 1)
    }

    @Test("A 401 for an older token is retried with the current token without refreshing")
    func outdated401UsesCurrentToken() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        let oldAccess = try #require(world.tokens(.access).last)
        world.server.expireAccessTokens()
        world.transport.hold(.path("/resources/inbox"), count: 1)
        let slow = startFetch(process.client, "inbox")
        let held = try #require(await world.transport.waitForHeld(.resources).first)

        _ = try await process.client.fetch("news")
        #expect(world.server.requestCount(.refresh) == 1)
        world.transport.release(held.exchange)

        let content = try await content(of: slow)
        #expect(content.resource == "inbox")
        #expect(world.server.requestCount(.refresh) == 1, "no second refresh")
        let newAccess = try #require(world.tokens(.access).last)
        #expect(world.requests(bearing: oldAccess, .path("/resources/inbox")).count == 1)
        #expect(world.requests(bearing: newAccess, .path("/resources/inbox")).count == 1)
    }

    @Test("The refresh call never passes through the 401 handling")
    func refreshNotThrough401Handler() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.server.inject(.status(401), on: .refresh)

        let result = await outcome(of: startFetch(process.client, "inbox"))

        #expect(world.server.requestCount(.refresh) == 1)
        #expect((try? result.get()) == nil)
        if case .failure(let error) = result {
            #expect(error.code == .refreshUnavailable)
            #expect(error.failureClass == .unexpectedResponse)
        }
        #expect(await process.client.snapshot.phase == .authenticated)
    }

    @Test("Each request is retried once; a second 401 is an error, not another refresh")
    func retriedOnlyOnce() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.inject(.status(401), on: .resource, count: 2)

        let result = await outcome(of: startFetch(process.client, "inbox"))

        if case .failure(let error) = result { #expect(error.code == .unauthorized) } else { Issue.record("expected unauthorized") }
        #expect(world.server.requestCount(.refresh) == 1)
        #expect(world.trace.requests(.resources).count == 2)
    }

    @Test("A cancelled waiter does not cancel the shared refresh")
    func cancelledWaiterKeepsRefresh() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.transport.hold(.refresh, count: 1)
        let cancelled = startFetch(process.client, "inbox")
        let kept = startFetch(process.client, "news")
        let refresh = try #require(await world.transport.waitForHeld(.refresh).first)
        await world.trace.waitForLog("request.waiting", count: 2)

        cancelled.cancel()
        #expect(await errorCode(of: cancelled) == .cancelled)
        world.transport.release(refresh.exchange)

        #expect(try await content(of: kept).resource == "news")
        #expect(world.trace.transitions.contains { $0.id == .refreshSucceeded })
        #expect(world.storedRecord?.accessToken == world.tokens(.access).last)
    }
}
