import ConformanceProtocol

/// At most one refresh in flight per session (token family): a refresh sent while another of the same
/// session is unanswered means two callers refreshed on their own. A refresh of an ended session that
/// is still on the wire does not count against the new session, nor does one the client abandoned (its own
/// timeout): from its `abandon` on, the world never answers it.
struct SingleRefreshInFlight: Oracle {
    let id = "single-refresh-in-flight"
    let invariants: [String] = ["refreshing-single-flight"]
    let requirements = ["REFRESH-SINGLE-FLIGHT"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        // One pass per session: the earlier refresh that stays in flight longest is the one a new refresh
        // overlaps, if any does (linear, so a thousand concurrent refreshes cost a thousand steps).
        struct Session: Hashable { let instance: Int; let family: Int? }
        var longest: [Session: (refresh: TraceIndex.Exchange, settled: Int)] = [:]
        for refresh in context.index.exchanges where refresh.isRefresh {
            let session = Session(instance: refresh.instance,
                                  family: refresh.presentedRefreshToken.flatMap { context.world.vault.token($0)?.family })
            if let earlier = longest[session], earlier.settled > refresh.event {
                findings.append(context.finding(
                    requirements, id,
                    "a second refresh was sent while refresh #\(earlier.refresh.event) of the same session was still in flight",
                    [earlier.refresh.event, refresh.event]))
            }
            let settled = refresh.endedEvent ?? context.index.kills.first {
                $0.instance == refresh.instance && $0.event > refresh.event
            }?.event ?? .max
            if settled > longest[session]?.settled ?? .min { longest[session] = (refresh, settled) }
        }
        return findings
    }
}

/// Each request is retried at most once after a 401, and a retry carries a different access token than the one
/// refused. Resends that are not 401 retries (after an offline failure, or after a refresh that failed) do not
/// count, and a backoff (the client sleeps) starts a new attempt: a restore validates again after it.
struct RequestRetriedAtMostOnce: Oracle {
    let id = "request-retried-at-most-once"
    let invariants: [String] = ["refreshing-retry-at-most-once"]
    let requirements = ["REFRESH-RETRY-ONCE"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let api = context.index.exchanges.filter { !$0.isAuthEndpoint && $0.cause != nil }
        let refreshes = context.index.exchanges.filter(\.isRefresh)
        let sleeps = context.trace.events.compactMap { event -> (instance: Int, event: Int)? in
            guard case .received(.sleep(_, let seconds)) = event.kind, seconds > 0 else { return nil }
            return (event.instance, event.number)
        }
        // A backoff after a failure that may pass (5xx, timeout, offline) starts a new attempt of the request; a
        // pause after a 401 does not, or a client could retry without limit by waiting a moment each time. The
        // launch's validation (`GET /me`) is the exception: restoring retries it with backoff, one refresh each time.
        // A backoff lets virtual time pass before the resend, or is cut short by a signal (`online`): a sleep in
        // between whose time never came (a deadline raced against a request) is none.
        func backedOff(_ first: TraceIndex.Exchange, _ second: TraceIndex.Exchange) -> Bool {
            guard first.status != 401 || first.endpoint == .profile else { return false }
            let signalled = context.index.commandSent(in: first.instance, between: first.event, and: second.event)
            guard signalled || context.trace.events[second.event - 1].time > context.trace.events[first.event - 1].time else { return false }
            return sleeps.contains { $0.instance == first.instance && $0.event > first.event && $0.event < second.event }
        }
        let byCause = Dictionary(grouping: api) { "\($0.instance)/\($0.cause!) \($0.request.method) \($0.request.path)" }
        for key in byCause.keys.sorted() {
            let sends = byCause[key]!
            var attempt: [TraceIndex.Exchange] = []
            var retries = 0
            func close() {
                if retries > 1 {
                    findings.append(context.finding(
                        requirements, id,
                        "one app request was sent \(attempt.count) times, retried \(retries) times after a 401; it may be retried once after a refresh",
                        attempt.map(\.event)))
                }
            }
            for send in sends {
                guard let previous = attempt.last, !backedOff(previous, send) else {
                    close()
                    (attempt, retries) = ([send], 0)
                    continue
                }
                attempt.append(send)
                guard previous.status == 401 else { continue }
                let between = refreshes.filter { $0.instance == previous.instance && $0.event > previous.event && $0.event < send.event }
                // After a refresh that failed, the client resends later, as a restore does: not a 401 retry.
                if between.isEmpty || between.contains(where: { $0.status == 200 }) { retries += 1 }
                if previous.request.bearerToken != nil, previous.request.bearerToken == send.request.bearerToken, between.isEmpty {
                    findings.append(context.finding(
                        requirements, id,
                        "the retry carried the same access token (\(context.handles(in: previous.request.bearerToken ?? ""))) that was just refused, with no refresh in between",
                        [previous.event, send.event]))
                }
            }
            close()
        }
        return findings
    }
}

/// The refresh call never goes through the 401 handling: it carries no bearer token, and a rejected refresh
/// (400 invalid_grant, a revoked session) is not answered by refreshing that session again, as a 401 handler
/// that sees the refresh's own refusal would. A refresh refused another way (a 401 `invalid_token`) is not a
/// rejection by the design and may be retried later.
///
/// Only the rejected session's own refresh token family counts, and only a refresh nothing else explains: a
/// refresh of another session (a new sign-in's, whatever its transitions) is not a retry, and one that follows
/// another request's 401 answered after the rejection (a sibling request that was on the wire when the session
/// ended) is that request's own 401 handling, through whatever session the client refreshes with. So is a refresh
/// for a command whose request was refused with a 401 before it and that sent no refresh since: a 401 handler on
/// the command's own thread that reached its refresh late (it waited for a lock while a sibling refreshed).
struct RefreshBypassesUnauthorizedHandling: Oracle {
    let id = "refresh-bypasses-401-handling"
    let invariants: [String] = ["refreshing-refresh-bypasses-401-handler"]
    let requirements = ["REFRESH-NOT-THROUGH-401-HANDLER"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        for refresh in context.index.exchanges where refresh.isRefresh && refresh.request.bearerToken != nil {
            findings.append(context.finding(
                requirements, id, "the refresh call carried an Authorization header: it went through the authenticated client",
                [refresh.event]))
        }
        let refreshes = context.index.exchanges.filter(\.isRefresh)
        var judged: Set<String> = []
        for refused in refreshes where refused.isRejection {
            guard let refusedAt = refused.replyEvent, let session = Self.session(of: refused, context),
                  !judged.contains("\(refused.instance)/\(session)") else { continue }
            // The loop a 401 handler makes: the same command's refresh, refused, is answered by refreshing again. A
            // refresh another command starts later is that command's (a rejected session used again is charged where
            // the session's end is judged), and a racing thread's is single flight's.
            guard let again = refreshes.first(where: {
                $0.instance == refused.instance && $0.event > refusedAt && $0.cause == refused.cause
                    && Self.session(of: $0, context) == session
            }) else { continue }
            // Another request's 401 in between explains the refresh: it is that request's 401 handling.
            let explained = context.index.exchanges.contains {
                $0.instance == refused.instance && !$0.isRefresh && $0.status == 401
                    && ($0.replyEvent ?? .max) > refusedAt && ($0.replyEvent ?? .max) < again.event
            }
            guard !explained, again.cause == nil || !context.index.answersOwnUnauthorized(again) else { continue }
            judged.insert("\(refused.instance)/\(session)")
            findings.append(context.finding(
                requirements, id, "a refused refresh was answered by refreshing the same session again",
                [refused.event, again.event]))
        }
        return findings
    }

    /// The session a refresh belongs to: the family of the refresh token it presents, or the token itself when
    /// the world never issued it.
    private static func session(of refresh: TraceIndex.Exchange, _ context: OracleContext) -> String? {
        guard let token = refresh.presentedRefreshToken else { return nil }
        return context.world.vault.token(token).map { "family \($0.family)" } ?? "token \(token)"
    }
}
