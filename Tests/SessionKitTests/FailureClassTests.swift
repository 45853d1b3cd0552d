import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 4: only an explicit rejection signs out; timeouts, 5xx, offline and lost connections keep
/// the session and retry with bounded exponential backoff and jitter from the injected clock and randomness.
@Suite("Only explicit rejection signs out", .timeLimit(.minutes(10)))
struct FailureClassTests {
    static let retryable: [(WorldHTTPServer.Fault, FailureClass)] = [
        (.status(503), .serverError),
        (.status(500), .serverError),
        (.status(429), .rateLimited),
        (.transport(.timeout), .timeout),
        (.transport(.offline), .offline),
        (.transport(.connectionLost), .connectionLost),
        (.responseLost, .connectionLost),
    ]

    @Test("Retryable failures keep the session and retry after a backoff", arguments: retryable)
    func retryableKeepsSession(fault: WorldHTTPServer.Fault, failureClass: FailureClass) async throws {
        let world = TestWorld.standard(server: .init(refreshReuseInterval: .seconds(60)))
        let process = try await world.signedInProcess(.withoutRequestDeadline)
        world.server.expireAccessTokens()
        world.server.inject(fault, on: .refresh)
        let mark = world.trace.mark

        let first = await outcome(of: startFetch(process.client, "inbox"))

        guard case .failure(let error) = first else { Issue.record("expected a deferral"); return }
        #expect(error.code == .refreshUnavailable)
        #expect(error.failureClass == failureClass)
        #expect(await process.client.snapshot.phase == .authenticated)
        #expect(world.trace.transitions.last?.id == .refreshDeferred)
        #expect(world.trace.transitions.last?.failureClass == failureClass)
        #expect(!world.trace.transitions(since: mark).contains { $0.to == .signedOut })
        #expect(world.trace.signInPrompts(since: mark).isEmpty)
        #expect(world.storedRecord?.account == Fixture.alice.id)

        await world.trace.waitForSleeps(count: 1)
        world.clock.advanceToNextDeadline()
        await world.trace.waitForTransition(.refreshSucceeded)
        #expect(try await process.client.fetch("inbox").account == Fixture.alice.id)
        #expect(world.server.requestCount(.refresh) == 2)
        expectValidTransitionChain(world.trace)
    }

    @Test("Backoff is exponential, jittered from the injected randomness, capped, and bounded in attempts")
    func boundedBackoff() async throws {
        let policy = BackoffPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(4), maximumAttempts: 4, jitter: 0.5)
        let world = TestWorld.standard()
        let process = try await world.signedInProcess(SessionConfiguration(refreshBackoff: policy, requestDeadline: nil))
        world.server.expireAccessTokens()
        world.server.inject(.status(503), on: .refresh, count: 10)
        let mark = world.trace.mark

        _ = await outcome(of: startFetch(process.client, "inbox"))
        for sleeps in 1...3 {
            await world.trace.waitForSleeps(count: sleeps)
            world.clock.advanceToNextDeadline()
            await world.trace.waitForTransition(.refreshDeferred, count: sleeps + 1)
        }
        await world.trace.waitForLog("refresh.retries-exhausted")

        #expect(world.server.requestCount(.refresh) == 4)
        let delays = world.trace.entries.compactMap { if case .sleep(let delay) = $0.event { delay } else { nil } }
        #expect(delays.count == 3)
        for (index, delay) in delays.enumerated() {
            let base = min(Duration.seconds(1 << index), .seconds(4))
            #expect(delay <= base && delay >= base / 2, "attempt \(index + 1): \(delay) within [\(base / 2), \(base)]")
        }
        #expect(await process.client.snapshot.phase == .authenticated)
        #expect(world.trace.signInPrompts(since: mark).isEmpty)
    }

    @Test("Jitter comes from the injected randomness: another seed, other delays")
    func jitterFollowsSeed() async throws {
        func firstDelay(seed: UInt64) async throws -> Duration? {
            let world = TestWorld.standard(seed: seed)
            let process = try await world.signedInProcess(.withoutRequestDeadline)
            world.server.expireAccessTokens()
            world.server.inject(.status(503), on: .refresh)
            _ = await outcome(of: startFetch(process.client, "inbox"))
            await world.trace.waitForSleeps(count: 1)
            return world.trace.entries.compactMap { if case .sleep(let delay) = $0.event { delay } else { nil } }.first
        }
        let a1 = try await firstDelay(seed: 11), a2 = try await firstDelay(seed: 11), b = try await firstDelay(seed: 12)
        #expect(a1 == a2)
        #expect(a1 != b)
    }

    @Test("An explicit rejection signs out", arguments: [(WorldHTTPServer.Fault.invalidGrant, FailureClass.invalidGrant), (.sessionRevoked, .sessionRevoked)])
    func rejectionSignsOut(fault: WorldHTTPServer.Fault, failureClass: FailureClass) async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.server.inject(fault, on: .refresh)

        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .sessionEnded)
        #expect(await process.client.snapshot.phase == .signedOut)
        #expect(world.trace.transitions.last?.id == .refreshRejected)
        #expect(world.trace.transitions.last?.failureClass == failureClass)
    }

    @Test("Another client error (400 invalid_request) is not a rejection")
    func otherClientErrorKeepsSession() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.expireAccessTokens()
        world.server.inject(.status(400, error: "invalid_request"), on: .refresh)

        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .refreshUnavailable)
        #expect(await process.client.snapshot.phase == .authenticated)
        #expect(world.storedRecord?.account == Fixture.alice.id)
    }
}
