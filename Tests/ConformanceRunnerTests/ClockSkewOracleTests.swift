import ConformanceProtocol
@testable import ConformanceRunner
import Testing

/// CLOCK-SKEW-TOLERANT is judged on harm: a refresh storm and a dead session are findings, one refresh when the
/// clock moves is not, and neither oracle judges a case whose device clock always agreed with the server's.
@Suite("oracles: clock skew judged on harm")
struct ClockSkewOracleTests {
    static let year = 31_536_000.0

    /// A trace whose device clock was set `skew` seconds off the server's before anything happened.
    static func crafted(skew: Double) -> CraftedTrace {
        var crafted = CraftedTrace()
        if skew != 0 { crafted.add(.sent(.clock(ClockReading(wall: World.epoch + skew, monotonic: 0)))) }
        return crafted
    }

    static func refresh(_ token: String) -> HTTPRequestMessage {
        HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(token)])
    }

    static func resource(_ access: String) -> HTTPRequestMessage {
        HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer \(access)"])
    }

    /// Alice signs in, then refreshes `count` times in a row at the same moment, each time the pair just received;
    /// with `lifetime`, the server's access tokens live that many seconds.
    static func earlyRefreshes(_ count: Int, skew: Double, lifetime: Double? = nil) -> CraftedTrace {
        var crafted = Self.crafted(skew: skew)
        if let lifetime { crafted.world.auth.accessTokenLifetime = lifetime }
        var token = crafted.signInAlice().refresh
        for _ in 0..<count {
            guard case .response(let response) = crafted.exchange(Self.refresh(token)),
                  let next = response.body["refresh_token"]?.string else { break }
            token = next
        }
        return crafted
    }

    @Test("more than three refreshes of fresh tokens within a minute, the clock off, is a storm charged to CLOCK-SKEW-TOLERANT")
    func refreshStormFails() throws {
        let crafted = Self.earlyRefreshes(4, skew: Self.year)
        let findings = try crafted.findings(NoRefreshStormFromClockSkew())
        #expect(findings.map(\.requirements) == [["CLOCK-SKEW-TOLERANT"]], "\(Harness.describe(findings))")
        let refreshes = TraceIndex(crafted.trace).exchanges.filter(\.isRefresh).map(\.event)
        #expect(findings.first?.evidence == refreshes)
    }

    @Test("up to three early refreshes a minute, or any number with the clock right, is no storm")
    func fewRefreshesOrNoSkewPass() throws {
        #expect(try Self.earlyRefreshes(3, skew: Self.year).findings(NoRefreshStormFromClockSkew()).isEmpty)
        #expect(try Self.earlyRefreshes(8, skew: 0).findings(NoRefreshStormFromClockSkew()).isEmpty)
    }

    @Test("refreshes of tokens that live a minute or less are no storm: a client's fixed margin makes each due at once")
    func shortLivedTokensPass() throws {
        // Found by explore (run 3:1795@stale-401) on the URLSession example: 4-second tokens, each refreshed on use.
        #expect(try Self.earlyRefreshes(5, skew: Self.year, lifetime: 4).findings(NoRefreshStormFromClockSkew()).isEmpty)
        #expect(try Self.earlyRefreshes(5, skew: Self.year, lifetime: 60).findings(NoRefreshStormFromClockSkew()).isEmpty)
        #expect(try Self.earlyRefreshes(5, skew: Self.year, lifetime: 61).findings(NoRefreshStormFromClockSkew()).count == 1)
    }

    @Test("refreshes the server asked for (a 401 for the token they replace) are no storm")
    func refreshesAfterUnauthorizedPass() throws {
        var crafted = Self.crafted(skew: Self.year)
        var tokens = crafted.signInAlice()
        for _ in 0..<5 {
            crafted.world.addFault(path: "/resources/*", kind: .expiredToken, times: 1)
            crafted.exchange(Self.resource(tokens.access), cause: "c2")
            guard case .response(let response) = crafted.exchange(Self.refresh(tokens.refresh)),
                  let access = response.body["access_token"]?.string, let refresh = response.body["refresh_token"]?.string else { break }
            tokens = (access, refresh)
        }
        #expect(try crafted.findings(NoRefreshStormFromClockSkew()).isEmpty)
    }

    /// Alice's access token refused with a 401 for three requests of three commands (`causes`), with a refresh
    /// between the second and the third when `refreshing`.
    /// With `refreshingLate`, the refresh comes after the third (a refresh a backoff deferred). With
    /// `failedBefore`, a refresh answered 503 comes first, that many seconds before the refusals.
    static func refusedThrice(skew: Double, causes: [String] = ["c2", "c3", "c4"], refreshing: Bool = false,
                              refreshingLate: Bool = false, failedBefore: Double? = nil) -> CraftedTrace {
        var crafted = Self.crafted(skew: skew)
        let tokens = crafted.signInAlice()
        if let failedBefore {
            crafted.world.addFault(path: "/auth/refresh", kind: .serverError, times: 1)
            crafted.exchange(Self.refresh(tokens.refresh))
            crafted.time += failedBefore
        }
        crafted.world.addFault(path: "/resources/*", kind: .expiredToken, times: 3)
        for (number, cause) in causes.enumerated() {
            if number == 2, refreshing { crafted.exchange(Self.refresh(tokens.refresh)) }
            crafted.exchange(Self.resource(tokens.access), cause: cause)
        }
        if refreshingLate { crafted.exchange(Self.refresh(tokens.refresh)) }
        return crafted
    }

    @Test("a token refused for two requests and sent again for a third, never refreshed, the clock off, is a dead session")
    func deadSessionFails() throws {
        let crafted = Self.refusedThrice(skew: -Self.year)
        let findings = try crafted.findings(NoDeadSessionFromClockSkew())
        #expect(findings.map(\.requirements) == [["CLOCK-SKEW-TOLERANT"]], "\(Harness.describe(findings))")
        let sends = TraceIndex(crafted.trace).exchanges.filter { $0.request.path == "/resources/inbox" }.map(\.event)
        #expect(findings.first?.evidence == sends)
    }

    @Test("a refresh after the second refusal, resends for one command, or a clock that agrees with the server are no dead session")
    func refreshedRetriedOrUnskewedPass() throws {
        #expect(try Self.refusedThrice(skew: -Self.year, refreshing: true).findings(NoDeadSessionFromClockSkew()).isEmpty)
        #expect(try Self.refusedThrice(skew: -Self.year, causes: ["c2", "c2", "c2"]).findings(NoDeadSessionFromClockSkew()).isEmpty)
        #expect(try Self.refusedThrice(skew: 0).findings(NoDeadSessionFromClockSkew()).isEmpty)
    }

    @Test("a refresh that comes after the third send (deferred by the backoff of a failed one) is no dead session")
    func refreshDeferredByBackoffPasses() throws {
        // Found by explore (run 1:5337@refresh-failed-retryable of seed 1): the reference, backing off after a refresh
        // timed out, sent its refused token for three commands, then refreshed as the backoff ended.
        #expect(try Self.refusedThrice(skew: -Self.year, refreshingLate: true).findings(NoDeadSessionFromClockSkew()).isEmpty)
    }

    @Test("a process still in the backoff of a refresh that failed retryably may send its refused token; one past the patience may not")
    func refusalsDuringBackoffPass() throws {
        // Found by explore (run 1:3757@refresh-failed-retryable): the reference, backing off after a lost refresh,
        // sent its refused token for three commands and was rebooted before the backoff's timer fired.
        #expect(try Self.refusedThrice(skew: -Self.year, failedBefore: 1).findings(NoDeadSessionFromClockSkew()).isEmpty)
        let late = try Self.refusedThrice(skew: -Self.year, failedBefore: DeferredRefreshTriedAgain.patience)
            .findings(NoDeadSessionFromClockSkew())
        #expect(late.map(\.requirements) == [["CLOCK-SKEW-TOLERANT"]], "\(Harness.describe(late))")
    }
}
