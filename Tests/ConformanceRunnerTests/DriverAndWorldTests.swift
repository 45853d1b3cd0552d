import ConformanceProtocol
@testable import ConformanceRunner
import Foundation
import JSONCore
import SpecModel
import Testing

@Suite("driver and world")
struct DriverAndWorldTests {
    /// Refresh, sign-out during a held refresh, a switch with a late response, a kill and a restore: many tokens.
    static let busy = Harness.caseFile("""
      - id: busy-session
        title: Sign in, refresh, switch with a late response, restart and restore
        requirements: [REFRESH-SINGLE-FLIGHT]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - fault: { path: /resources/*, kind: expiredToken, times: 3 }
          - request: { resource: inbox, count: 3 }
          - expect: { for: [REFRESH-SINGLE-FLIGHT], shown: [alice], results: { ok: 5 }, requests: [{ path: /auth/refresh, count: 1 }] }
          - hold: { path: /resources/* }
          - request: { resource: inbox }
          - switchAccount: { account: bob }
          - release: { path: /resources/* }
          - advance: { seconds: 30 }
          - request: { resource: drafts }
          - kill: {}
          - launch: {}
          - request: { resource: inbox }
          - expect: { for: [REFRESH-SINGLE-FLIGHT], state: authenticated, shown: [bob], notShown: [alice] }
      - id: busy-sign-out
        title: Sign in, request, sign out
        requirements: [SIGNOUT-BLOCK-AND-CLEAR]
        steps:
          - launch: {}
          - signIn: { account: carol }
          - request: { resource: inbox }
          - signOut: {}
          - expect: { for: [SIGNOUT-BLOCK-AND-CLEAR], state: signedOut, tokensStored: false, revoked: carol }

    """)

    static func renderedTraces(_ result: RunResult) -> [String] {
        result.outcomes.map(Harness.rendered)
    }

    /// The rendered trace with the one seed-dependent line (the welcome) normalized.
    static func shape(_ outcome: CaseOutcome) -> [String] {
        let renderer = TraceRenderer(vault: outcome.vault)
        return outcome.trace.events.map { event in
            if case .sent(.welcome) = event.kind { return "#\(event.number) > welcome" }
            return renderer.line(event)
        }
    }

    // MARK: Determinism

    @Test("the same cases and seed give byte-identical rendered traces")
    func sameSeedSameTrace() throws {
        let first = try Harness.run(Self.busy, seed: 7)
        let second = try Harness.run(Self.busy, seed: 7)
        #expect(first.outcomes.map(\.status) == [.pass, .pass], "\(first.outcomes.map { Harness.describe($0.findings) })")
        #expect(Self.renderedTraces(first) == Self.renderedTraces(second))
        #expect(first.outcomes.map { $0.vault.tokens.map(\.value) } == second.outcomes.map { $0.vault.tokens.map(\.value) })
        #expect(first.outcomes.map(\.seed) == second.outcomes.map(\.seed))
    }

    @Test("running cases in parallel gives the same traces as running them one after another")
    func parallelSameTrace() throws {
        let serial = try Harness.run(Self.busy, seed: 7, jobs: 1)
        let parallel = try Harness.run(Self.busy, seed: 7, jobs: 2)
        #expect(Self.renderedTraces(serial) == Self.renderedTraces(parallel))
    }

    @Test("a different seed gives different token values but a trace of the same shape")
    func otherSeedSameShape() throws {
        let first = try Harness.run(Self.busy, seed: 7)
        let other = try Harness.run(Self.busy, seed: 8)
        for (a, b) in zip(first.outcomes, other.outcomes) {
            let valuesA = Set(a.vault.tokens.map(\.value))
            let valuesB = Set(b.vault.tokens.map(\.value))
            #expect(!valuesA.isEmpty && valuesA.count == valuesB.count)
            #expect(valuesA.isDisjoint(with: valuesB))
            #expect(a.vault.tokens.map(\.handle) == b.vault.tokens.map(\.handle))
            #expect(a.seed != b.seed)
            #expect(Self.shape(a) == Self.shape(b))
            #expect(Harness.rendered(a) != Harness.rendered(b), "only the welcome's seed differs once redacted")
        }
    }

    // MARK: Redaction

    @Test("no token value or fragment appears in a rendered trace; handles stand in for them")
    func traceIsRedacted() throws {
        let result = try Harness.run(Self.busy, seed: 3)
        for outcome in result.outcomes {
            let rendered = Harness.rendered(outcome)
            #expect(outcome.vault.tokens.count >= 2)
            #expect(outcome.vault.leaked(in: rendered).map(\.handle).isEmpty, "\(outcome.vault.leaked(in: rendered).map(\.handle))")
            #expect(rendered.contains("Bearer at#1"))
            #expect(rendered.contains("rt#1"))
            // The raw trace does carry them: the redaction is what removed them.
            let raw = outcome.trace.events.compactMap { event -> String? in
                if case .received(let message) = event.kind { return message.line }
                return nil
            }.joined(separator: "\n")
            #expect(!outcome.vault.contained(in: raw).isEmpty)
        }
    }

    @Test("finding messages, excerpts and the run summary carry handles, never token values",
          arguments: [FakeSessionClient.Defect.logsToken, .resendsRotatedRefreshToken, .usesTokenAfterSignOut,
                      .retriesThreeTimes, .usesTokenBeforeStoring, .pairInPreferences, .writesLateRefreshResult])
    func findingsAreRedacted(defect: FakeSessionClient.Defect) throws {
        let yaml = Harness.caseFile("""
          - id: redaction-probe
            title: Refresh twice, sign out with a refresh in flight, then try again
            requirements: [LOG-NO-TOKEN-VALUES]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - fault: { path: /resources/*, kind: expiredToken, times: 4 }
              - request: { resource: inbox }
              - advance: { seconds: 10 }
              - fault: { path: /resources/*, kind: expiredToken }
              - request: { resource: inbox }
              - fault: { path: /resources/*, kind: expiredToken }
              - hold: { path: /auth/* }
              - request: { resource: inbox }
              - signOut: {}
              - release: { path: /auth/refresh }
              - request: { resource: inbox }

        """)
        let (outcome, _) = try Harness.runOne(yaml, .init(defects: [defect]))
        #expect(outcome.status == .fail)
        #expect(!outcome.findings.isEmpty)
        let renderer = TraceRenderer(vault: outcome.vault)
        for finding in outcome.findings {
            #expect(outcome.vault.leaked(in: finding.message).map(\.handle).isEmpty, "\(finding.message)")
            let excerpt = renderer.excerpt(outcome.trace, around: finding.evidence)
            #expect(outcome.vault.leaked(in: excerpt).map(\.handle).isEmpty)
        }
        #expect(outcome.status == .fail)
        for finding in outcome.findings {
            #expect(outcome.vault.leaked(in: finding.message).map(\.handle).isEmpty)
        }
    }

    @Test("a token fragment the client logs is redacted from the rendered trace too")
    func fragmentIsRedacted() throws {
        let yaml = Harness.caseFile("""
          - id: fragment-probe
            title: Sign in with a client that logs the start of its access token
            requirements: [LOG-NO-TOKEN-VALUES]
            steps:
              - launch: {}
              - signIn: { account: alice }

        """)
        let (outcome, result) = try Harness.runOne(yaml, .init(defects: [.logsTokenPrefix]))
        #expect(outcome.findings.contains { $0.requirements == ["LOG-NO-TOKEN-VALUES"] })
        #expect(result.outcomes.first?.status == .fail)
        #expect(outcome.vault.leaked(in: Harness.rendered(outcome)).map(\.handle).isEmpty)
        let renderer = TraceRenderer(vault: outcome.vault)
        for finding in outcome.findings {
            let excerpt = renderer.excerpt(outcome.trace, around: finding.evidence)
            #expect(outcome.vault.leaked(in: excerpt).map(\.handle).isEmpty)
        }
    }

    @Test("the adapter's stderr is scanned for tokens, and shown redacted when a case errors")
    func stderrScannedAndRedacted() throws {
        let yaml = Harness.caseFile("""
          - id: stderr-probe
            title: Sign in with a client that logs its token to stderr
            requirements: [LOG-NO-TOKEN-VALUES]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - request: { resource: stall }

        """)
        let launcher = LineLauncher(configuration: .init(defects: [.logsToken],
                                                         sabotage: .stopAnsweringBarriers(onResource: "stall")),
                                    logsToStderr: true)
        let errored = try #require(try Harness.run(yaml, launcher: launcher).outcomes.first)
        #expect(errored.status == .error)
        let tail = try #require(errored.stderrTail)
        #expect(tail.contains("access token at#1"), "\(tail)")
        #expect(errored.vault.leaked(in: tail).map(\.handle).isEmpty)

        let clean = LineLauncher(configuration: .init(defects: [.logsToken]), logsToStderr: true)
        let passed = try #require(try Harness.run(yaml.replacingOccurrences(of: "resource: stall", with: "resource: inbox"),
                                                  launcher: clean).outcomes.first)
        let finding = try #require(passed.findings.first { $0.check == "oracle:no-token-in-client-output" })
        #expect(finding.requirements == ["LOG-NO-TOKEN-VALUES"])
        #expect(finding.message.contains("stderr") && finding.message.contains("at#1"))
    }

    // MARK: Errors

    static let errorThenPass = Harness.caseFile("""
      - id: broken-conversation
        title: The client breaks the protocol during a request
        requirements: [REFRESH-RETRY-ONCE]
        steps:
          - launch: {}
          - signIn: { account: alice }
          - request: { resource: sabotage }
          - request: { resource: inbox }
      - id: next-case-runs
        title: The next case runs against a fresh client
        requirements: [SIGNIN-VALIDATE-INPUT]
        steps:
          - launch: {}
          # Input the world's sign-in rule refuses: the evidence SIGNIN-VALIDATE-INPUT needs to pass.
          - signIn: { email: not-an-email, password: short }
          - signIn: { account: alice }
          - request: { resource: inbox }
          - expect: { for: [SIGNIN-VALIDATE-INPUT], state: authenticated, shown: [alice] }

    """)

    static func expectErrorThenPass(_ result: RunResult, reason expected: String,
                                    sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(result.outcomes.map(\.status) == [.error, .pass], sourceLocation: sourceLocation)
        guard result.outcomes.count == 2 else { return }
        let errored = result.outcomes[0]
        let reason = errored.reason ?? ""
        #expect(reason.contains(expected), "reason: \(reason)", sourceLocation: sourceLocation)
        #expect(errored.findings.isEmpty, "no oracle runs on a broken trace", sourceLocation: sourceLocation)
        #expect(result.outcomes[1].findings.isEmpty, sourceLocation: sourceLocation)
        #expect(Harness.verdict("REFRESH-RETRY-ONCE", in: result)?.status == .error, sourceLocation: sourceLocation)
        #expect(Harness.verdict("SIGNIN-VALIDATE-INPUT", in: result)?.status == .pass, sourceLocation: sourceLocation)
        #expect(!result.mustRequirementsPass, sourceLocation: sourceLocation)
        #expect(result.outcomes.first { $0.caseID == "broken-conversation" }?.status == .error, sourceLocation: sourceLocation)
    }

    @Test("a client that stops answering barriers makes the case an error; the next case still runs")
    func silentClientErrors() throws {
        let result = try Harness.run(Self.errorThenPass, .init(sabotage: .stopAnsweringBarriers(onResource: "sabotage")))
        Self.expectErrorThenPass(result, reason: "hung")
    }

    @Test("a client that says hello twice makes the case an error; the next case still runs")
    func helloTwiceErrors() throws {
        let result = try Harness.run(Self.errorThenPass, .init(sabotage: .helloAgain(onResource: "sabotage")))
        Self.expectErrorThenPass(result, reason: "'hello' sent twice")
    }

    @Test("a result for a command the runner never sent makes the case an error")
    func unknownResultErrors() throws {
        let result = try Harness.run(Self.errorThenPass, .init(sabotage: .resultForUnknownCommand(onResource: "sabotage")))
        #expect(result.outcomes.last?.status == .pass)
        #expect(result.outcomes.first?.status == .error)
    }

    @Test("a client line that is not protocol makes the case an error; the next case still runs", arguments: [
        (#"{"type":"telemetry","resource":"sabotage"}"#, "unknown adapter message type 'telemetry'"),
        (#"{"type":"ui","event":"content","resource":"sabotage""#, "not JSON"),
        (#"{"type":"ui","event":"banner","resource":"sabotage"}"#, "'event' of a 'ui' message is 'banner'"),
    ])
    func badLineErrors(line: String, expected: String) throws {
        let launcher = LineLauncher(configuration: .init(), rewrite: { original in
            original.contains(#""type":"ui""#) && original.contains(#""resource":"sabotage""#) ? line : original
        })
        let result = try Harness.run(Self.errorThenPass, launcher: launcher)
        Self.expectErrorThenPass(result, reason: expected)
        #expect(result.outcomes.first?.reason?.hasPrefix("protocolViolation") == true)
    }

    @Test("a client that speaks another protocol version fails the start-up; no case runs")
    func versionMismatchStopsTheRun() throws {
        let result = try Harness.run(Self.errorThenPass, .init(protocolVersion: 2))
        let failure = try #require(result.startupFailure)
        #expect(failure.code == .versionMismatch)
        #expect(failure.message == "this runner speaks protocol 1; the adapter sent 2")
        #expect(result.outcomes.isEmpty)
        #expect(!result.mustRequirementsPass)
        #expect(result.startupFailure?.code == .versionMismatch)
    }

    // MARK: Capabilities

    @Test("a case that needs a capability the client does not declare is skipped with the reason")
    func missingCapabilitySkips() throws {
        let yaml = Harness.caseFile("""
          - id: needs-background-refresh
            title: A background refresh case
            requirements: [STORAGE-BACKGROUND-ACCESSIBILITY, REFRESH-SINGLE-FLIGHT]
            capabilities: [background-refresh]
            steps:
              - launch: {}
              - signIn: { account: alice }

        """)
        let (skipped, result) = try Harness.runOne(yaml)
        #expect(skipped.status == .skipped)
        #expect(skipped.reason == "the adapter does not declare background-refresh")
        #expect(skipped.trace.events.isEmpty, "a skipped case does not start the client")
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: result)?.status == .skipped)
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: result)?.reason == "the adapter does not declare background-refresh")
        #expect(Harness.verdict("STORAGE-BACKGROUND-ACCESSIBILITY", in: result)?.status == .skipped)

        let (ran, declared) = try Harness.runOne(yaml, .init(capabilities: ["background-refresh"]))
        #expect(ran.status == .pass)
        #expect(declared.capabilities == ["background-refresh"])
        // It ran, but never had requests waiting on a refresh: untested, not pass (no pass without evidence).
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: declared)?.status == .untested)
        #expect(Harness.verdict("REFRESH-SINGLE-FLIGHT", in: declared)?.reason?.hasSuffix("[concurrent-demand-during-refresh]") == true)
    }

    @Test("a preferences fault refuses exactly the next N preferences changes and leaves secure storage alone")
    func preferencesFaultCountsPreferencesChangesOnly() {
        var world = World(seed: 1)
        world.addStorageFault(.preferencesWriteFailure, times: 2)
        let secureFirst = world.takeStorageWriteFailure()
        let preferences = [world.takePreferencesWriteFailure(), world.takePreferencesWriteFailure(), world.takePreferencesWriteFailure()]
        world.addStorageFault(.writeFailure, times: 1)
        let preferencesAfterSecureFault = world.takePreferencesWriteFailure()
        let secureAfterSecureFault = world.takeStorageWriteFailure()
        #expect(!secureFirst)
        #expect(preferences == [true, true, false])
        #expect(!preferencesAfterSecureFault)
        #expect(secureAfterSecureFault)
    }

    @Test("a rateLimited fault answers the next call 429 too_many_requests with Retry-After, then the server answers again")
    func rateLimitedFaultAnswers429Once() {
        var world = World(seed: 1)
        world.addFault(path: "/auth/refresh", kind: .rateLimited, times: 1)
        let refresh = HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": "unknown"])
        guard case .response(let limited) = world.serve(refresh), case .response(let next) = world.serve(refresh) else {
            Issue.record("the world gave no response")
            return
        }
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] == "1")
        #expect(limited.body["error"]?.string == "too_many_requests")
        #expect(next.status == 400, "the fault lasts one call: the server refuses the unknown token itself")
    }

    // MARK: Process death

    @Test("a kill before the storage write discards it: the relaunched client finds no session")
    func killBeforeWriteDiscards() throws {
        let yaml = Harness.caseFile("""
          - id: kill-before-write
            title: Killed before the sign-in's storage write
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - kill: { at: beforeStorageWrite }
              - signIn: { account: alice }
              - expect: { for: [PROCESS-DEATH-SAFE], tokensStored: false }
              - launch: {}
              - expect: { for: [PROCESS-DEATH-SAFE], state: signedOut, transitions: [restore-failed] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(TraceIndex(outcome.trace).kills.map(\.value)
                    == ["killed before the storage write: secure-storage set of 'session' (e3) discarded"])
    }

    @Test("a kill after the storage write keeps it: the relaunched client restores the session")
    func killAfterWriteKeeps() throws {
        let yaml = Harness.caseFile("""
          - id: kill-after-write
            title: Killed right after the sign-in's storage write
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - kill: { at: afterStorageWrite }
              - signIn: { account: alice }
              - expect: { for: [PROCESS-DEATH-SAFE], tokensStored: true }
              - launch: {}
              - expect: { for: [PROCESS-DEATH-SAFE], state: authenticated, transitions: [restore-validated] }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        #expect(TraceIndex(outcome.trace).launches.count == 2)
    }

    @Test("held responses are answered only on release, in the order the requests arrived")
    func heldInArrivalOrder() throws {
        let yaml = Harness.caseFile("""
          - id: hold-and-release
            title: Three requests held, then released
            requirements: [REFRESH-SINGLE-FLIGHT]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - hold: { path: /resources/* }
              - request: { resource: inbox, count: 3 }
              - expect: { for: [REFRESH-SINGLE-FLIGHT], held: 3, results: { ok: 2 } }
              - release: { path: /resources/* }
              - expect: { for: [REFRESH-SINGLE-FLIGHT], held: 0, results: { ok: 3 } }

        """)
        let (outcome, _) = try Harness.runOne(yaml)
        #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))")
        let index = TraceIndex(outcome.trace)
        let held = index.exchanges.filter { $0.request.path == "/resources/inbox" }
        #expect(held.map(\.cause) == ["c3", "c4", "c5"])
        let replies = held.compactMap(\.replyEvent)
        #expect(replies == replies.sorted() && replies.count == 3)
        let contentIDs = held.compactMap { $0.responseBody?.body["contentId"]?.string }
        #expect(contentIDs == ["content-1", "content-2", "content-3"])
    }

    // MARK: The world's auth server

    static func refresh(_ world: inout World, _ token: String) -> HTTPResponseMessage? {
        guard case .response(let response) = world.serve(HTTPRequestMessage(
            method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(token)])) else { return nil }
        return response
    }

    static func login(_ world: inout World) -> String? {
        guard case .response(let response) = world.serve(HTTPRequestMessage(
            method: "POST", path: "/auth/login",
            body: ["email": "alice@example.com", "password": "correct horse battery"])) else { return nil }
        return response.body["refresh_token"]?.string
    }

    @Test("the API server authorizes every request: a valid token reaching another account's data gets 403")
    func otherAccountsDataIsForbidden() throws {
        var world = World(seed: 1)
        guard case .response(let login) = world.serve(HTTPRequestMessage(
            method: "POST", path: "/auth/login",
            body: ["email": "alice@example.com", "password": "correct horse battery"])) else {
            Issue.record("login failed")
            return
        }
        let token = try #require(login.body["access_token"]?.string)
        func get(_ path: String) -> Int? {
            guard case .response(let response) = world.serve(HTTPRequestMessage(
                method: "GET", path: path, headers: ["Authorization": "Bearer \(token)"])) else { return nil }
            return response.status
        }
        #expect(get("/accounts/acct-alice/resources/inbox") == 200)
        #expect(get("/accounts/acct-bob/resources/inbox") == 403)
        #expect(get("/resources/inbox") == 200)
    }

    @Test("a path with a query string is answered 404 on every endpoint, before any authorization", arguments: [
        ("GET", "/resources/inbox?page=2"), ("GET", "/accounts/acct-alice/resources/inbox?x=1"), ("GET", "/me?full=1"),
        ("POST", "/auth/refresh?grant=1"), ("POST", "/auth/login?next=/"),
    ])
    func queryStringIsNotFound(method: String, path: String) throws {
        var world = World(seed: 1)
        guard case .response(let login) = world.serve(HTTPRequestMessage(
            method: "POST", path: "/auth/login",
            body: ["email": "alice@example.com", "password": "correct horse battery"])) else {
            Issue.record("login failed")
            return
        }
        let token = try #require(login.body["access_token"]?.string)
        let refresh = try #require(login.body["refresh_token"]?.string)
        guard case .response(let response) = world.serve(HTTPRequestMessage(
            method: method, path: path, headers: ["authorization": "Bearer \(token)"],
            body: method == "POST" ? ["refresh_token": .string(refresh), "email": "alice@example.com",
                                      "password": "correct horse battery"] : .null)) else {
            Issue.record("no response")
            return
        }
        #expect(response.status == 404, "\(method) \(path) answered \(response.status)")
        #expect(response.body["error"]?.string == "not_found")
    }

    @Test("without a reuse interval, a rotated refresh token is refused and its family revoked, even at the same instant")
    func noReuseIntervalRefusesAtOnce() throws {
        var world = World(seed: 1)
        let first = try #require(Self.login(&world))
        #expect(Self.refresh(&world, first)?.status == 200)
        let reuse = Self.refresh(&world, first)
        #expect(reuse?.status == 400)
        world.advance(by: 1)
        let later = try #require(Self.login(&world))
        #expect(Self.refresh(&world, later)?.status == 200)
        world.advance(by: 1)
        #expect(Self.refresh(&world, later)?.status == 400, "a reuse one second later is refused")
    }

    @Test("within the reuse interval the previous refresh token is accepted once more, not again and again")
    func reuseIntervalAcceptsOnce() throws {
        var world = World(seed: 1)
        world.configure(ServerSettings(reuseInterval: 600))
        let first = try #require(Self.login(&world))
        #expect(Self.refresh(&world, first)?.status == 200)
        world.advance(by: 5)
        #expect(Self.refresh(&world, first)?.status == 200, "accepted once more within the interval")
        world.advance(by: 5)
        let third = Self.refresh(&world, first)
        #expect(third?.status == 400)
    }
}
