import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 5: a rejected refresh or revoked session is one transition that clears credentials, the
/// account's cache and pending operations together, cancels pending requests with a clear error, and
/// shows exactly one sign-in prompt.
@Suite("Rejection is one transition", .timeLimit(.minutes(10)))
struct RejectionTransitionTests {
    @Test("A rejected refresh clears everything at once and prompts once")
    func rejectedRefreshIsOneTransition() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        _ = try await process.client.fetch("inbox")
        #expect(world.preferences.contents.keys.contains { $0.hasPrefix("cache/acct-A/") })
        world.server.expireAccessTokens()
        world.transport.hold(.refresh, count: 1)
        let mark = world.trace.mark
        let screens = ["inbox", "news", "secrets", "inbox", "news"].map { startFetch(process.client, $0) }
        let refresh = try #require(await world.transport.waitForHeld(.refresh).first)
        await world.trace.waitForLog("request.waiting", count: 5)

        world.transport.release(refresh.exchange, with: .response(HTTPResponse(status: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8))))

        for screen in screens {
            let result = await outcome(of: screen)
            guard case .failure(let error) = result else { Issue.record("request not cancelled"); continue }
            #expect(error.code == .sessionEnded)
            #expect(error.failureClass == .invalidGrant)
        }
        await world.trace.waitForUI(count: 2) { if case .signInPromptShown = $0 { true } else { false } }
        let ended = world.trace.transitions(since: mark).filter { $0.to == .signedOut }
        #expect(ended.map(\.id) == [.refreshRejected])
        #expect(world.trace.signInPrompts(since: mark) == [.sessionRejected])
        #expect(world.secureStorage.items[Fixture.recordKey] == nil)
        #expect(!world.preferences.contents.keys.contains { $0.hasPrefix("cache/acct-A/") })
        #expect(world.trace.uiEvents.contains(.contentCleared(account: Fixture.alice.id)))

        let transition = world.sequence { $0.isTransition(.refreshRejected) }
        let credentialsCleared = world.sequence { if case .secureStorage(let op) = $0.event { op.kind == .delete } else { false } }
        let cacheCleared = world.sequence { if case .preferences(let op) = $0.event { op.kind == .remove } else { false } }
        let prompt = world.sequence(after: mark) { if case .ui(.signInPromptShown) = $0.event { true } else { false } }
        // The end is durable before it is told: credentials cleared, then the transition, then the prompt.
        #expect(credentialsCleared < transition && transition < prompt && cacheCleared < prompt)

        let requestsBefore = world.trace.requests().count
        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .notAuthenticated)
        #expect(world.trace.requests().count == requestsBefore)
        expectValidTransitionChain(world.trace)
    }

    @Test("A session revoked on the server ends in one transition and one prompt")
    func revokedSession() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.server.revokeSessions(of: Fixture.alice.id)
        let mark = world.trace.mark

        let results = await withTaskGroup(of: SessionError.Code?.self) { group in
            for resource in ["inbox", "news", "secrets"] {
                group.addTask { await errorCode(of: startFetch(process.client, resource)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        // Each request ends with a clear error whatever the interleaving: cancelled while waiting for the
        // refresh (sessionEnded), its 401 processed just after the rejection (sessionChanged), or sent
        // after it (notAuthenticated).
        #expect(results.allSatisfy { [.sessionEnded, .sessionChanged, .notAuthenticated].contains($0) })
        #expect(world.server.requestCount(.refresh) == 1)
        #expect(world.trace.transitions(since: mark).filter { $0.to == .signedOut }.map(\.id) == [.refreshRejected])
        await world.trace.waitForUI(count: 2) { if case .signInPromptShown = $0 { true } else { false } }
        #expect(world.trace.signInPrompts(since: mark) == [.sessionRejected])
    }

    @Test("A request in flight at the rejection is cancelled at once, and its late reply shows and caches nothing")
    func inFlightRequestDiscarded() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.transport.hold(.path("/resources/secrets"), at: .afterServer, count: 1)
        let inFlight = startFetch(process.client, "secrets")
        let held = try #require(await world.transport.waitForHeld(.resources).first)
        world.server.expireAccessTokens()
        world.server.inject(.invalidGrant, on: .refresh)
        #expect(await errorCode(of: startFetch(process.client, "inbox")) == .sessionEnded)
        #expect(await errorCode(of: inFlight) == .sessionEnded, "cancelled at the rejection, not when its reply comes")

        world.transport.release(held.exchange)
        let exchange = held.exchange
        await world.trace.waitUntil { if case .httpReply(exchange, _) = $0.event { true } else { false } }
        #expect(world.trace.shownContent.isEmpty)
        #expect(!world.preferences.contents.keys.contains { $0.contains("secrets") })
    }
}
