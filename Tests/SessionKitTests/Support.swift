import Foundation
import SessionKit
import SessionKitTesting
import SimulatedWorld
import Testing

/// Accounts and resources of the standard world.
enum Fixture {
    struct Account: Sendable {
        let email: String
        let password: String
        let id: AccountID
    }

    static let alice = Account(email: "alice@example.com", password: "alice-password", id: AccountID("acct-A"))
    static let bob = Account(email: "bob@example.com", password: "bob-password", id: AccountID("acct-B"))
    static let recordKey = "session.record"
}

extension SessionConfiguration {
    /// For tests that count the backoff's sleeps on the trace: without a per-request deadline every sleep is a
    /// backoff (with one, each HTTP exchange also sleeps until its deadline, and a cancelled sleep stays traced).
    static var withoutRequestDeadline: SessionConfiguration { SessionConfiguration(requestDeadline: nil) }
}

extension TestWorld {
    /// A world whose server knows Alice and Bob, each with `inbox`, `news` and `secrets`.
    static func standard(
        seed: UInt64 = 1,
        server: WorldHTTPServer.Configuration = .init(),
        lockState: InMemorySecureStorage.LockState = .unlocked,
        profile: WorldProfile = .jsonV1
    ) -> TestWorld {
        let world = TestWorld(seed: seed, server: server, lockState: lockState, profile: profile)
        for account in [Fixture.alice, Fixture.bob] {
            world.server.addAccount(email: account.email, password: account.password, id: account.id, displayName: account.id.rawValue)
            for resource in ["inbox", "news", "secrets"] {
                world.server.setResource(resource, body: #"{"owner":"\#(account.id.rawValue)","resource":"\#(resource)"}"#, for: account.id)
            }
        }
        return world
    }

    /// Starts a process, launches it on empty storage (signed out) and signs `account` in.
    func signedInProcess(_ configuration: SessionConfiguration = SessionConfiguration(), as account: Fixture.Account = Fixture.alice) async throws -> TestProcess {
        let process = startProcess(configuration: configuration)
        await process.client.launch()
        _ = try await process.client.signIn(email: account.email, password: account.password)
        return process
    }

    /// The session record as stored in secure storage, decoded.
    var storedRecord: StoredRecord? {
        secureStorage.items[Fixture.recordKey].flatMap { StoredRecord(data: $0.data) }
    }

    func tokens(_ kind: WorldHTTPServer.TokenKind, of account: AccountID = Fixture.alice.id) -> [String] {
        server.issuedTokens.filter { $0.kind == kind && $0.account == account }.map(\.value)
    }

    /// Requests carrying `Authorization: Bearer accessToken`.
    func requests(bearing accessToken: String, _ matcher: RequestMatcher = .any) -> [HTTPRequest] {
        trace.requests(matcher).filter { $0.header("Authorization") == "Bearer \(accessToken)" }
    }

    /// Requests whose body contains `text` (refresh and revoke carry the refresh token in the body).
    func requests(withBodyContaining text: String, _ matcher: RequestMatcher = .any) -> [HTTPRequest] {
        trace.requests(matcher).filter { $0.body.map { String(decoding: $0, as: UTF8.self).contains(text) } ?? false }
    }

    func transitions(of process: TestProcess) -> [SessionTransition] {
        trace.entries.compactMap { entry in
            guard entry.process == process.handle.id, case .transition(let transition) = entry.event else { return nil }
            return transition
        }
    }

    /// Sequence number of the first entry at or after `mark` matching `matches`, or `Int.max`.
    func sequence(after mark: Int = 0, of matches: (WorldTrace.Entry) -> Bool) -> Int {
        trace.firstIndex { $0.sequence >= mark && matches($0) } ?? Int.max
    }
}

/// The decoded session record (secure storage item `session.record`).
struct StoredRecord {
    var account: AccountID?
    var accessToken: String?
    var refreshToken: String?
    var pendingRevocations: [String]
    var raw: String

    init?(data: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let active = object["active"] as? [String: Any]
        account = (active?["account"] as? String).map(AccountID.init(rawValue:))
        accessToken = active?["accessToken"] as? String
        refreshToken = active?["refreshToken"] as? String
        pendingRevocations = (object["pendingRevocations"] as? [[String: Any]] ?? []).compactMap { $0["refreshToken"] as? String }
        raw = String(decoding: data, as: UTF8.self)
    }
}

/// Runs `fetch` in its own task so the test can act while it waits.
func startFetch(_ client: SessionClient, _ resource: String) -> Task<ResourceContent, any Error> {
    Task { try await client.fetch(resource) }
}

/// Awaits `task`, cancelling it when the test is cancelled (time limit), so a broken client fails the
/// test instead of hanging it. Each suite's time limit is such a hang guard, never a speed target: it is
/// sized to a whole `swift test` run (10 minutes), because on a 2-core machine the tests that wait for
/// subprocesses in the same process can hold the cooperative pool's threads for minutes.
func finished<T: Sendable>(_ task: Task<T, Never>) async -> T {
    await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
}

/// The outcome of a fetch task as a `Result` with the session error (cancelled with the test).
func outcome(of task: Task<ResourceContent, any Error>) async -> Result<ResourceContent, SessionError> {
    let result: Result<ResourceContent, any Error> = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
    return switch result {
    case .success(let content): .success(content)
    case .failure(let error as SessionError): .failure(error)
    case .failure(let error): .failure(SessionError(.invalidResponse, context: "unexpected \(type(of: error))"))
    }
}

/// The content of a fetch task, or its error.
func content(of task: Task<ResourceContent, any Error>) async throws(SessionError) -> ResourceContent {
    try await outcome(of: task).get()
}

func errorCode(of task: Task<ResourceContent, any Error>) async -> SessionError.Code? {
    if case .failure(let error) = await outcome(of: task) { error.code } else { nil }
}

/// Every transition of every process starts where the previous one ended (first from `restoring`), and
/// the generation moves exactly as the transition's effect says.
func expectValidTransitionChain(_ trace: WorldTrace, sourceLocation: SourceLocation = #_sourceLocation) {
    var phase: [Int: SessionPhase] = [:]
    var generation: [Int: SessionGeneration] = [:]
    for entry in trace.entries {
        guard case .transition(let transition) = entry.event else { continue }
        let from = phase[entry.process] ?? .restoring
        let before = generation[entry.process] ?? .launch
        #expect(transition.from == from, "\(transition) after \(from)", sourceLocation: sourceLocation)
        let expected = transition.id.generationEffect == .increment ? before.rawValue + 1 : before.rawValue
        #expect(transition.generation.rawValue == expected, "\(transition) after generation \(before)", sourceLocation: sourceLocation)
        phase[entry.process] = transition.to
        generation[entry.process] = transition.generation
    }
}

extension WorldTrace.Entry {
    var isTransition: (SessionTransitionID) -> Bool {
        { id in if case .transition(let transition) = self.event { transition.id == id } else { false } }
    }
}
