import ConformanceProtocol
import SimulatedWorld

// CLOCK-SKEW-TOLERANT judged on harm: a device clock that is off, or jumps, must cause no refresh storm, no
// sign-out (`only-explicit-rejection-signs-out`) and no dead session. One refresh when the clock moves (a token
// that looks expired by a wall clock jumped ahead) harms nobody and is no finding. Both oracles judge only cases in
// which the device's wall clock was off the server's at some point (a `skewClock` step).

/// The device's wall clock as the runner set it, read back from the trace.
enum DeviceClock {
    /// The first event at which the client was given a wall clock off the server's (`welcome` or `clock`), if any.
    /// The server's time is the monotonic clock plus `World.epoch`: both move together with `advance`.
    static func firstSkew(_ context: OracleContext) -> Int? {
        context.trace.events.first { event in
            switch event.kind {
            case .sent(.welcome(_, let clock, _, _)), .sent(.clock(let clock)):
                abs(clock.wall - clock.monotonic - World.epoch) >= 1
            default:
                false
            }
        }?.number
    }
}

/// No refresh storm from clock skew. Counted, after the device clock was first off: refreshes of an access token
/// that lives longer than a minute, issued by the server less than half its lifetime before (by the server's
/// clock), that nothing but the client's own clock explains (no 401 for that token, no background-refresh task
/// since it arrived), each token once (sending the same refresh again after a failure is the backoff's to judge).
/// More than `allowance` of them within a minute of virtual time in one process is a storm.
struct NoRefreshStormFromClockSkew: Oracle {
    let id = "no-refresh-storm-from-clock-skew"
    let invariants: [String] = []
    let requirements = ["CLOCK-SKEW-TOLERANT"]
    /// Early refreshes one process may make within a minute: one per jump of the clock, and some room.
    static let allowance = 3
    static let window = 60.0

    func check(_ context: OracleContext) -> [Finding] {
        guard let skewed = DeviceClock.firstSkew(context) else { return [] }
        let index = context.index
        let events = context.trace.events
        var replaced: Set<String> = []
        var early: [Int: [TraceIndex.Exchange]] = [:]
        for refresh in index.exchanges where refresh.isRefresh {
            guard let access = SessionTokens.currentAccessToken(before: refresh, context), replaced.insert(access.value).inserted,
                  refresh.event > skewed else { continue }
            let serverNow = SessionTokens.serverTime(at: refresh, context)
            // A token that lives a minute or less is due at once for a client with a fixed margin (a minute is
            // common), whatever its clock says: its refreshes tell nothing of the skew.
            guard let expiresAt = access.expiresAt, expiresAt - access.issuedAt > Self.window,
                  serverNow - access.issuedAt < (expiresAt - access.issuedAt) / 2 else { continue }
            let delivered = index.exchanges.first { $0.issuedAccessToken == access.value }?.replyEvent ?? 0
            let refused = index.exchanges.contains {
                $0.request.bearerToken == access.value && $0.status == 401 && ($0.replyEvent ?? .max) < refresh.event
            }
            let backgroundTask = index.commands.contains {
                $0.instance == refresh.instance && $0.value.kind == .backgroundRefresh && $0.event > delivered && $0.event < refresh.event
            }
            guard !refused, !backgroundTask else { continue }
            early[refresh.instance, default: []].append(refresh)
        }
        return early.keys.sorted().compactMap { instance in
            let refreshes = early[instance]!
            for (offset, first) in refreshes.enumerated() {
                let start = events[first.event - 1].time
                let within = refreshes[offset...].prefix { events[$0.event - 1].time < start + Self.window }
                guard within.count > Self.allowance else { continue }
                return context.finding(
                    requirements, id,
                    "\(within.count) refreshes within a minute after the device clock was moved, each of an access token the server had issued less than half its lifetime before and never refused: a refresh storm (at most \(Self.allowance) early refreshes a minute)",
                    within.map(\.event))
            }
            return nil
        }
    }
}

/// What a trace says of a session's access tokens around a refresh.
enum SessionTokens {
    /// The access token a refresh replaces: the last one of its session (token family) delivered before it.
    static func currentAccessToken(before refresh: TraceIndex.Exchange, _ context: OracleContext) -> IssuedToken? {
        guard let family = refresh.presentedRefreshToken.flatMap({ context.world.vault.token($0)?.family }) else { return nil }
        return context.index.exchanges
            .filter { ($0.replyEvent ?? .max) < refresh.event }
            .compactMap { $0.issuedAccessToken.flatMap { context.world.vault.token($0) } }
            .last { $0.family == family }
    }

    /// The server's clock when `refresh` was sent.
    static func serverTime(at refresh: TraceIndex.Exchange, _ context: OracleContext) -> Double {
        context.trace.events[refresh.event - 1].time + World.epoch
    }

    /// Seconds of life the access token a refresh replaces had left when the refresh was sent, by the server's clock.
    static func lifeLeft(at refresh: TraceIndex.Exchange, _ context: OracleContext) -> Double? {
        guard let access = currentAccessToken(before: refresh, context), let expiresAt = access.expiresAt else { return nil }
        return expiresAt - serverTime(at: refresh, context)
    }
}

/// No dead session from clock skew: the client does not go on sending an access token the server refuses with a
/// 401 (not a revocation) while the user keeps asking, never refreshing it. A client that judges expiry by a wall
/// clock that jumped back believes such a token valid for as long as the jump, and without a refresh on the 401
/// every request fails. Judged: the token refused for one command's request, then for another's sent after that
/// refusal, and sent again for a third command after the second refusal, with no refresh in flight at the first
/// refusal or sent after it (to the end of the process: a refresh deferred by backoff still comes), no refresh
/// failed retryably or went unpersisted shortly before (the backoff's timer may not have fired when the process
/// ended), and the session not ended by the third send. (A client may send a token refused once, by a fault say,
/// with the next request; it must refresh when that is refused too. Resends for one command are retries:
/// `request-retried-at-most-once`'s.)
struct NoDeadSessionFromClockSkew: Oracle {
    let id = "no-dead-session-from-clock-skew"
    let invariants: [String] = []
    let requirements = ["CLOCK-SKEW-TOLERANT"]

    func check(_ context: OracleContext) -> [Finding] {
        guard let skewed = DeviceClock.firstSkew(context) else { return [] }
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<String> = []
        for first in index.exchanges where first.event > skewed && Self.refused(first) {
            guard let token = first.request.bearerToken, let firstRefusal = first.replyEvent, !judged.contains(token) else { continue }
            let sends = index.exchanges.filter { $0.instance == first.instance && $0.request.bearerToken == token && !$0.isAuthEndpoint }
            guard let second = sends.first(where: { $0.event > firstRefusal && Self.distinct($0, first) && Self.refused($0) }),
                  let secondRefusal = second.replyEvent,
                  let third = sends.first(where: { $0.event > secondRefusal && Self.distinct($0, first) && Self.distinct($0, second) })
            else { continue }
            // Any refresh in flight at the first refusal or sent after it, even after the third send: a client in
            // the backoff of a failed refresh sends its refused token meanwhile, and its refresh still comes.
            let refreshed = index.exchanges.contains {
                $0.instance == first.instance && $0.isRefresh && ($0.replyEvent ?? .max) > firstRefusal
            }
            let ended = index.transitions.contains {
                $0.instance == first.instance && $0.event > firstRefusal && $0.event < third.event
                    && sessionEndingTransitions.contains($0.message.transition ?? "")
            }
            guard !refreshed, !ended, !Self.inBackoff(first.instance, before: firstRefusal, at: third.event, context) else { continue }
            judged.insert(token)
            findings.append(context.finding(
                requirements, id,
                "the server refused \(context.handles(in: token)) with a 401 for two requests, and a third sent it again, with no refresh after the first refusal: the client takes for valid a token the server refuses (a dead session)",
                [first.event, second.event, third.event]))
        }
        return findings
    }

    /// Whether the process may still be in the backoff of a deferred refresh at `event`: its last refresh before
    /// `refusal` failed retryably, or its tokens could not be written to secure storage (persist before use: the
    /// client keeps the old token until a write succeeds), less than `DeferredRefreshTriedAgain.patience` before.
    /// A process that ends (killed, rebooted) before the backoff's timer fires never sends the retry its trace
    /// would show.
    private static func inBackoff(_ instance: Int, before refusal: Int, at event: Int, _ context: OracleContext) -> Bool {
        let index = context.index
        let time = { (event: Int) in context.trace.events[event - 1].time }
        guard let failed = index.exchanges.last(where: { $0.instance == instance && $0.isRefresh && $0.event < refusal }),
              let ended = failed.endedEvent, ended < refusal
        else { return false }
        let refusedWrite = index.storageChanges.last {
            $0.instance == instance && $0.secure && $0.outcome == .refused && $0.event > failed.event && $0.event < event
        }
        guard let since = refusedWrite?.event ?? (RetryableRefreshBacksOff.retryable(failed) ? ended : nil) else { return false }
        return time(event) - time(since) < DeferredRefreshTriedAgain.patience
    }

    /// Refused with a 401 for its access token (a revoked session is the rejection's to judge).
    private static func refused(_ exchange: TraceIndex.Exchange) -> Bool {
        !exchange.isAuthEndpoint && exchange.status == 401 && !exchange.isRejection
    }

    /// Whether two requests serve different commands (unknown causes count as different).
    private static func distinct(_ one: TraceIndex.Exchange, _ other: TraceIndex.Exchange) -> Bool {
        one.cause == nil || other.cause == nil || one.cause != other.cause
    }
}
