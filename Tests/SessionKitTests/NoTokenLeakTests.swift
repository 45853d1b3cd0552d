import Foundation
@testable import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 11: logs and events record transitions and failure classes, never a token value or any
/// fragment of one.
@Suite("Logs and events never carry a token", .timeLimit(.minutes(10)))
struct NoTokenLeakTests {
    /// Every 8-character window of the random part of every issued token.
    private func fragments(_ world: TestWorld) -> Set<String> {
        var result = Set<String>()
        for token in world.server.issuedTokens {
            let secret = Array(token.value.dropFirst(3))
            for start in 0...(secret.count - 8) { result.insert(String(secret[start..<(start + 8)])) }
        }
        return result
    }

    /// Drives most of the lifecycle: sign-in, requests, proactive and reactive refresh, a deferral,
    /// offline sign-out with queued revocation, a switch, a rejection, failed sign-ins.
    private func fullLifecycle() async throws -> (TestWorld, [String]) {
        let world = TestWorld.standard()
        var texts: [String] = []
        let process = try await world.signedInProcess(.withoutRequestDeadline)
        _ = try await process.client.fetch("inbox")
        world.server.expireAccessTokens()
        _ = try await process.client.fetch("news")
        world.clock.advance(by: .seconds(290))
        _ = try await process.client.fetch("inbox")
        world.server.expireAccessTokens()
        world.server.inject(.transport(.timeout), on: .refresh)
        if case .failure(let error) = await outcome(of: startFetch(process.client, "inbox")) { texts.append(error.description) }
        await world.trace.waitForSleeps(count: 1)
        world.clock.advanceToNextDeadline()
        await world.trace.waitForTransition(.refreshSucceeded, count: 3)
        _ = try await process.client.switchAccount(email: Fixture.bob.email, password: Fixture.bob.password)
        world.transport.setOnline(false)
        await process.client.signOut()
        world.transport.setOnline(true)
        await process.client.networkDidBecomeAvailable()
        await world.trace.waitForLog("revocation.succeeded", count: 2)
        do { _ = try await process.client.signIn(email: Fixture.alice.email, password: "wrong-password") } catch { texts.append(error.description) }
        _ = try await process.client.signIn(email: Fixture.alice.email, password: Fixture.alice.password)
        world.server.revokeSessions(of: Fixture.alice.id)
        if case .failure(let error) = await outcome(of: startFetch(process.client, "inbox")) { texts.append(error.description) }
        texts += world.trace.requests().map(\.description)
        texts.append(await process.client.snapshot.description)
        return (world, texts)
    }

    @Test("No token fragment in logs, transitions, UI events, preferences, errors or request descriptions")
    func noFragmentAnywhere() async throws {
        let (world, extraTexts) = try await fullLifecycle()
        let fragments = fragments(world)
        #expect(fragments.count > 100)
        var texts = extraTexts
        for record in world.trace.logRecords {
            texts.append(record.description)
            texts += record.metadata.values
        }
        texts += world.trace.transitions.map(\.description)
        texts += world.trace.uiEvents.map(\.description)
        texts += world.trace.shownContent.map { String(decoding: $0.body, as: UTF8.self) }
        texts += world.preferences.contents.map { $0.key + String(decoding: $0.value, as: UTF8.self) }
        let corpus = texts.joined(separator: "\n")
        let leaked = fragments.filter { corpus.contains($0) }
        #expect(leaked.isEmpty, "token fragments leaked: \(leaked.prefix(3))")
    }

    @Test("Token types redact themselves in descriptions, debug descriptions and reflection")
    func tokenTypesRedact() {
        let secret = "at_0123456789abcdef0123456789abcdef"
        let access = AccessToken(secret)
        let refresh = RefreshToken("rt_fedcba9876543210fedcba9876543210")
        let session = StoredSession(sessionID: "s-1", account: AccountID("acct"), accessToken: access, refreshToken: refresh)
        var dumped = ""
        dump(session, to: &dumped)
        let renderings = [
            "\(access)", String(describing: access), String(reflecting: access), "\(refresh)",
            "\(session)", String(reflecting: session), dumped,
            String(describing: Credentials(accessToken: access, refreshToken: refresh, version: 1)),
            HTTPRequest(method: .get, path: "/me", headers: ["Authorization": "Bearer \(secret)"]).description,
        ]
        for rendering in renderings {
            #expect(!rendering.contains("0123456789abcdef") && !rendering.contains("fedcba9876543210"), "\(rendering)")
        }
        #expect("\(access)".contains("<redacted>"))
    }

    @Test("Every transition is logged with its endpoints and failure class")
    func transitionsAndFailureClassesLogged() async throws {
        let (world, _) = try await fullLifecycle()
        let logged = world.trace.logRecords.filter { $0.event == "session.transition" }
        let transitions = world.trace.transitions
        #expect(logged.count == transitions.count)
        for (record, transition) in zip(logged, transitions) {
            #expect(record.metadata["transition"] == transition.id.rawValue)
            #expect(record.metadata["from"] == transition.from.rawValue)
            #expect(record.metadata["to"] == transition.to.rawValue)
            #expect(record.metadata["failureClass"] == transition.failureClass?.rawValue)
        }
        #expect(transitions.contains { $0.id == .refreshDeferred && $0.failureClass == .timeout })
        #expect(transitions.contains { $0.id == .refreshRejected && $0.failureClass == .invalidGrant })
    }
}
