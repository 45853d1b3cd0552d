import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 8: sign-in validates input before any request, then logs in, persists, fetches the
/// profile and enters `authenticated` in a new generation.
@Suite("Sign-in validates input first", .timeLimit(.minutes(10)))
struct SignInTests {
    static let invalidEmails = ["", "alice", "alice@", "@example.com", "alice@example", "alice@@example.com", "al ice@example.com", "alice@example..com", "alice@.example.com"]

    @Test("A malformed email is refused before any request", arguments: invalidEmails)
    func invalidEmail(email: String) async {
        let world = TestWorld.standard()
        let process = world.startProcess()
        await process.client.launch()
        let transitionsBefore = world.trace.transitions.count

        await #expect(throws: SessionError(.invalidInput, context: "email is not a valid address")) {
            try await process.client.signIn(email: email, password: Fixture.alice.password)
        }
        #expect(world.trace.requests().isEmpty)
        #expect(world.trace.transitions.count == transitionsBefore)
        #expect(await process.client.snapshot.phase == .signedOut)
    }

    @Test("A password shorter than 8 characters is refused before any request; 8 is enough")
    func passwordLength() async throws {
        let world = TestWorld.standard()
        world.server.addAccount(email: "eight@example.com", password: "12345678", id: AccountID("acct-8"))
        let process = world.startProcess()
        await process.client.launch()

        await #expect(throws: SessionError(.invalidInput, context: "password must be at least 8 characters")) {
            try await process.client.signIn(email: "eight@example.com", password: "1234567")
        }
        #expect(world.trace.requests().isEmpty)

        let profile = try await process.client.signIn(email: "eight@example.com", password: "12345678")
        #expect(profile.accountID == AccountID("acct-8"))
    }

    @Test("Sign-in logs in, persists, fetches the profile, then is authenticated in a new generation")
    func signInSequence() async throws {
        let world = TestWorld.standard()
        let process = world.startProcess()
        let signedOut = await process.client.launch()

        let profile = try await process.client.signIn(email: Fixture.alice.email, password: Fixture.alice.password)

        #expect(profile.accountID == Fixture.alice.id)
        let snapshot = await process.client.snapshot
        #expect(snapshot.phase == .authenticated)
        #expect(snapshot.account == Fixture.alice.id)
        #expect(snapshot.generation > signedOut.generation)
        #expect(world.trace.requests().map(\.path) == ["/auth/login", "/me"])
        #expect(world.transitions(of: process).map(\.id) == [.restoreFailed, .signInStarted, .signInSucceeded])
        let login = world.sequence { if case .httpRequest(_, let request) = $0.event { request.path == "/auth/login" } else { false } }
        let stored = world.sequence { if case .secureStorage(let op) = $0.event { op.kind == .write } else { false } }
        let profileRequest = world.sequence { if case .httpRequest(_, let request) = $0.event { request.path == "/me" } else { false } }
        let succeeded = world.sequence { $0.isTransition(.signInSucceeded) }
        #expect(login < stored && stored < profileRequest && profileRequest < succeeded)
        #expect(world.storedRecord?.account == Fixture.alice.id)
        expectValidTransitionChain(world.trace)
    }

    @Test("Wrong credentials fail the sign-in and return to signed out")
    func wrongCredentials() async {
        let world = TestWorld.standard()
        let process = world.startProcess()
        await process.client.launch()

        await #expect(throws: SessionError(.invalidCredentials, failureClass: .invalidCredentials, context: "sign-in failed")) {
            try await process.client.signIn(email: Fixture.alice.email, password: "wrong-password")
        }
        #expect(world.transitions(of: process).map(\.id) == [.restoreFailed, .signInStarted, .signInFailed])
        #expect(await process.client.snapshot.phase == .signedOut)
        #expect(world.secureStorage.items.isEmpty)
    }
}
