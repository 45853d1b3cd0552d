import ConformanceProtocol
@testable import ConformanceRunner
import Testing

/// The `abandon` message: a client that gives up on an effect by its own deadline says so, the world stops
/// holding it, and the oracles no longer count it as in flight.
@Suite("abandon")
struct AbandonTests {
    /// A refresh held by the world times out on the client's 30 s deadline; the next request's 401 starts a new
    /// refresh while the first is still held, and the release answers it.
    static let timedOutRefresh = Harness.caseFile("""
          - id: refresh-timed-out-then-retried
            title: A refresh the client timed out on is retried later
            requirements: [REFRESH-SINGLE-FLIGHT]
            timeouts: true
            steps:
              - launch: {}
              - signIn: { account: alice }
              - hold: { path: /auth/refresh }
              - fault: { path: /resources/*, kind: expiredToken, times: 2 }
              - request: { resource: inbox }
              - advance: { seconds: 31 }
              - request: { resource: inbox }
              - release: { path: /auth/refresh }

        """)

    static func timedOut(abandoning: Bool) throws -> CaseOutcome {
        var configuration = FakeSessionClient.Configuration()
        configuration.refreshDeadline = 30
        configuration.abandonsWhatItGivesUpOn = abandoning
        return try Harness.runOne(Self.timedOutRefresh, configuration).outcome
    }

    @Test("a client that abandons a refresh it timed out on and refreshes again later keeps one refresh in flight")
    func abandonedRefreshIsNotInFlight() throws {
        let outcome = try Self.timedOut(abandoning: true)
        #expect(outcome.status == .pass, "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))")
        let abandoned = outcome.trace.events.compactMap { event -> String? in
            if case .effectAbandoned(let id) = event.kind { return id }
            return nil
        }
        // The timed-out refresh, then the deadline of the retried one, answered first.
        #expect(abandoned.count == 2, "\(Harness.rendered(outcome))")
        let index = TraceIndex(outcome.trace)
        let refreshes = index.exchanges.filter(\.isRefresh)
        #expect(refreshes.count == 2)
        #expect(refreshes.first?.abandonEvent != nil && refreshes.first?.replyEvent == nil,
                "the world never answers an abandoned refresh, not even at the release")
        #expect(refreshes.last?.status == 200)
    }

    @Test("the same client without the abandon message fails REFRESH-SINGLE-FLIGHT: its first refresh is still in flight")
    func withoutAbandonTheRetryOverlaps() throws {
        let outcome = try Self.timedOut(abandoning: false)
        #expect(outcome.status == .fail)
        #expect(outcome.findings.contains { $0.check == "oracle:single-refresh-in-flight" }, "\(Harness.describe(outcome.findings))")
    }

    static let oneRequest = Harness.caseFile("""
          - id: abandons-on-request
            title: The client abandons an effect when asked for the sabotage resource
            requirements: [SESSION-STATE-MACHINE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - request: { resource: sabotage }

        """)

    @Test("abandoning an effect the adapter never sent, or a storage change, is a protocol error", arguments: [
        ("e999", "the adapter abandoned 'e999', which it never sent as an effect"),
        ("e1", "the adapter abandoned 'e1', a 'storage' effect: only 'http' and 'sleep' effects can be abandoned"),
    ])
    func abandonOfUnknownOrStorageEffectErrors(effect: String, reason: String) throws {
        let outcome = try Harness.runOne(Self.oneRequest, .init(sabotage: .abandon(effect: effect, onResource: "sabotage"))).outcome
        #expect(outcome.status == .error)
        #expect(outcome.reason == "protocolViolation: " + reason)
    }

    @Test("abandoning an effect already answered is ignored, and said so in the trace")
    func abandonOfAnsweredEffectIsIgnored() throws {
        // e2 is the sign-in's login request, answered long before.
        let outcome = try Harness.runOne(Self.oneRequest, .init(sabotage: .abandon(effect: "e2", onResource: "sabotage"))).outcome
        #expect(outcome.status == .pass, "\(outcome.reason ?? "")\n\(Harness.rendered(outcome))")
        #expect(Harness.rendered(outcome).contains("abandon of e2 ignored: it was answered or abandoned already"))
        #expect(!outcome.trace.events.contains { if case .effectAbandoned = $0.kind { true } else { false } })
    }
}

@Suite("abandon, as the oracles read it")
struct AbandonOracleTests {
    /// Alice's request gets a 401; the client sends a refresh the world holds, and at 30 s gives up on it.
    static func timedOutRefresh(abandon: Bool) -> (CraftedTrace, refresh: String) {
        var crafted = NoCommandBlockedByAnUnansweredRefreshTests.heldRefresh()
        crafted.time = 30
        if abandon {
            crafted.add(.received(.abandon(id: "e42", reason: "timeout")))
            crafted.add(.effectAbandoned(effectID: "e42"))
        }
        crafted.transition("refresh-deferred", from: "refreshing", to: "authenticated", account: "acct-alice")
        crafted.add(.received(.result(CommandResult(id: "c7", error: ErrorInfo(code: "timeout", definite: false)))))
        let refresh = crafted.trace.events.compactMap { event -> String? in
            if case .received(.http(_, _, let request)) = event.kind, request.path == "/auth/refresh" {
                return request.body["refresh_token"]?.string
            }
            return nil
        }.first ?? ""
        return (crafted, refresh)
    }

    @Test("a refresh sent after the client abandoned the previous one is not a second refresh in flight")
    func retryAfterAbandonIsSingleFlight() throws {
        for abandon in [true, false] {
            var (crafted, refresh) = Self.timedOutRefresh(abandon: abandon)
            crafted.time = 40
            crafted.add(.sent(.command(AppCommand(id: "c8", kind: .request, resource: "inbox"))))
            crafted.add(.received(.http(id: "e43", cause: "c8", HTTPRequestMessage(
                method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": .string(refresh)]))))
            let findings = try crafted.findings(SingleRefreshInFlight())
            #expect(findings.isEmpty == abandon, "abandon \(abandon): \(findings.map(\.message))")
        }
    }

    @Test("a refresh abandoned on the client's deadline is a retryable failure: sent again at the same instant, it did not back off")
    func abandonedRefreshMustBackOff() throws {
        for wait in [0.0, 2.0] {
            var (crafted, refresh) = Self.timedOutRefresh(abandon: true)
            crafted.time += wait
            crafted.add(.received(.http(id: "e43", cause: nil, HTTPRequestMessage(
                method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": .string(refresh)]))))
            let findings = try crafted.findings(RetryableRefreshBacksOff())
            #expect(findings.map(\.requirements) == (wait == 0 ? [["REFRESH-RETRYABLE-BACKOFF"]] : []), "\(findings.map(\.message))")
        }
    }

    @Test("the backoff after an abandoned refresh is measured from the abandon: 30 s deadlines with waits 1, 2, 4, 8 s grow")
    func backoffIsMeasuredFromTheAbandon() throws {
        let findings = try Self.outage(waits: [1, 2, 4, 8]).findings(RetryableRefreshBacksOff())
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }

    /// Refreshes of one outage, each abandoned at its 30 s deadline, then `waits[i]` before the next; a
    /// command is sent before the attempt numbered `commandBefore`, if any; the attempt numbered `answered` is
    /// answered at once with that status instead.
    static func outage(waits: [Double], commandBefore: Int? = nil, answered: (attempt: Int, status: Int)? = nil) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        for (attempt, wait) in (waits + [0]).enumerated() {
            if attempt == commandBefore {
                crafted.add(.sent(.command(AppCommand(id: "c\(attempt)", kind: .request, resource: "news"))))
            }
            let id = "e\(50 + attempt)"
            crafted.add(.received(.http(id: id, cause: nil, HTTPRequestMessage(
                method: "POST", path: "/auth/refresh", body: ["grant_type": "refresh_token", "refresh_token": .string(tokens.refresh)]))))
            if let answered, answered.attempt == attempt {
                crafted.add(.sent(.reply(id: id, .response(HTTPResponseMessage(status: answered.status, body: ["error": "invalid_token"])))))
            } else {
                crafted.time += 30
                crafted.add(.effectAbandoned(effectID: id))
            }
            crafted.time += wait
        }
        return crafted
    }

    @Test("waits that do not grow from the start of an outage fail REFRESH-RETRYABLE-BACKOFF, a command or not after the fifth attempt")
    func flatOutageFails() throws {
        // Judged over the outage's first eight attempts at most, or as many as came before the command.
        for (command, waits) in [(nil, "10 s, 10 s, 10 s, 10 s, 10 s, 10 s"), (6, "10 s, 10 s, 10 s, 10 s, 10 s")] as [(Int?, String)] {
            let findings = try Self.outage(waits: [10, 10, 10, 10, 10, 10], commandBefore: command).findings(RetryableRefreshBacksOff())
            #expect(findings.map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]], "\(findings.map(\.message))")
            #expect(findings.first?.message.contains("did not grow (\(waits))") == true, "\(findings.map(\.message))")
        }
    }

    @Test("one interval with a small jitter fails REFRESH-RETRYABLE-BACKOFF: waits within 20% of each other did not grow")
    func jitteredIntervalFails() throws {
        for waits in [[6, 6, 6, 6], [10, 10.5, 9.8, 10.2], [5, 5.9, 5.4, 5.2, 5.8, 5.1, 5.6]] as [[Double]] {
            let findings = try Self.outage(waits: waits).findings(RetryableRefreshBacksOff())
            #expect(findings.map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]], "\(waits): \(findings.map(\.message))")
        }
    }

    /// 001: "Timeouts, 5xx and offline are retryable; keep the session and back off." A backoff with random jitter
    /// draws each wait from a range that grows, and a single draw may land low.
    @Test("jittered exponential backoffs pass, though a late wait came out shorter than an early one: full and decorrelated jitter, Google's ExponentialBackOff")
    func jitteredBackoffsPass() throws {
        let outages: [(String, [Double])] = [
            // Waits seen in explorations of correct clients, each charged by the former rule (the longest of the
            // last two waits under 1.5 times the shortest of the first two).
            ("full jitter, min(cap, 2^n) x random", [0.4, 1.48, 0.42, 0.05]),
            ("decorrelated jitter, random between the base and 3 x the last wait", [2.37, 2.17, 2.35, 2.75]),
            ("ExponentialBackOff: 0.5 s x 1.5^n, plus or minus 50%", [0.72, 0.75, 0.6, 0.9]),
        ]
        for (backoff, waits) in outages {
            let findings = try Self.outage(waits: waits).findings(RetryableRefreshBacksOff())
            #expect(findings.isEmpty, "\(backoff): \(findings.map(\.message))")
        }
    }

    @Test("a backoff at its cap after a command in the outage is not judged as the outage's start: the client may keep its backoff")
    func cappedAfterCommandPasses() throws {
        // 1, 2, 4 s, then a user's request, then the capped waits of a client that kept its backoff.
        let findings = try Self.outage(waits: [1, 2, 4, 45, 42, 50, 48, 44], commandBefore: 3).findings(RetryableRefreshBacksOff())
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }

    @Test("a 401 to a refresh that the client retried does not start a new outage: its backoff may stay at its cap across it")
    func cappedAcrossAnsweredErrorPasses() throws {
        // 1, 2, 4, 8 s, capped waits, a 401 the client read as retryable, then the cap again (a Python client's
        // restore retry through an injected invalid_token).
        let capped = Self.outage(waits: [1, 2, 4, 8, 40, 45, 42, 50, 48, 44], answered: (attempt: 6, status: 401))
        let findings = try capped.findings(RetryableRefreshBacksOff())
        #expect(findings.isEmpty, "\(findings.map(\.message))")
        // Flat waits from the start fail, whether or not a 401 came in between.
        let flat = Self.outage(waits: [10, 10, 10, 10, 10, 10], answered: (attempt: 2, status: 401))
        #expect(try flat.findings(RetryableRefreshBacksOff()).map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]])
    }

    @Test("a client that abandons its refresh and then never answers the command is judged by every-command-answered-once")
    func abandonedThenSilentIsJudged() throws {
        for abandon in [true, false] {
            var crafted = NoCommandBlockedByAnUnansweredRefreshTests.heldRefresh()
            crafted.time = 30
            if abandon {
                crafted.add(.received(.abandon(id: "e42", reason: "timeout")))
                crafted.add(.effectAbandoned(effectID: "e42"))
            }
            let findings = try crafted.findings(EveryCommandAnsweredOnce())
            // Without the abandon the refresh is still outstanding, so nothing can be said of the command.
            #expect(findings.map(\.message) == (abandon ? ["command c7 (request) never got a result, though the world answered everything the client asked"] : []))
        }
    }
}
