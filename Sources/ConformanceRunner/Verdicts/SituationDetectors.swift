import ConformanceProtocol
import SimulatedWorld
import SpecModel

/// Which `Situation`s a trace shows the client was put through: the evidence a requirement's pass rests on.
/// Each detector reads what the world did and what the client sent, never what a correct client reports, so
/// a wrong client reaches the same situations as a right one.
enum SituationDetectors {
    static func reached(_ index: TraceIndex, trace: Trace) -> Set<Situation> {
        let facts = SituationFacts(index: index, trace: trace)
        return Set(Situation.allCases.filter { detect($0, facts) })
    }

    private static func detect(_ situation: Situation, _ facts: SituationFacts) -> Bool {
        let index = facts.index
        switch situation {
        case .signedIn: return !facts.logins.isEmpty
        case .signedInAgain: return facts.logins.count >= 2
        case .accountSwitched: return Set(facts.logins.compactMap(\.accountID)).count >= 2
        case .sessionEnded: return !facts.sessionEnds.isEmpty
        case .userSignOut:
            return index.commands.contains { command in
                command.value.kind == .signOut && facts.logins.contains { $0.exchange.replyEvent ?? .max < command.event }
            }
        case .tokensWritten:
            return index.storageChanges.contains { $0.secure && $0.operation == .set && $0.outcome == .applied }
        case .refreshed: return !facts.refreshes.isEmpty
        case .refreshedTwice: return facts.refreshes.count >= 2
        case .refreshedTokenUsed:
            let issued = Set(facts.refreshes.compactMap(\.issuedAccessToken))
            return index.exchanges.contains { $0.request.bearerToken.map(issued.contains) == true }
        case .concurrentDemandDuringRefresh:
            return index.exchanges.contains { $0.isRefresh && facts.requestsWaiting(on: $0) >= 2 }
        case .requestRefused401:
            return index.exchanges.contains { refused in
                !refused.isAuthEndpoint && refused.status == 401
                    && facts.refreshes.contains { $0.instance == refused.instance && $0.event > (refused.replyEvent ?? .max) }
            }
        case .stale401:
            return index.exchanges.contains { refused in
                !refused.isAuthEndpoint && refused.status == 401 && facts.refreshes.contains {
                    $0.instance == refused.instance && $0.event > refused.event && ($0.replyEvent ?? .max) < (refused.replyEvent ?? 0)
                }
            }
        case .refreshRejected: return index.exchanges.contains { $0.isRefresh && $0.isRejection }
        case .refreshRejectedWithRequestsWaiting:
            return index.exchanges.contains { $0.isRefresh && $0.isRejection && facts.requestsWaiting(on: $0) >= 1 }
        case .refreshFailedRetryable:
            return index.exchanges.contains { $0.isRefresh && RetryableRefreshBacksOff.retryable($0) }
        case .refreshUnansweredLong:
            return index.exchanges.contains { refresh in
                refresh.isRefresh && facts.time(of: refresh.replyEvent ?? facts.lastEvent(of: refresh.instance))
                    - facts.time(of: refresh.event) >= NoCommandBlockedByAnUnansweredRefresh.bound
            }
        case .killDuringRefresh:
            return index.kills.contains { kill in
                index.exchanges.contains { $0.isRefresh && $0.instance == kill.instance && ($0.replyEvent ?? .max) > kill.event }
            }
        case .killAtRefreshStore:
            return facts.storageKills.contains { kill in
                facts.refreshes.contains { $0.instance == kill.instance && ($0.replyEvent ?? .max) < kill.event }
                    && !index.results.contains { $0.instance == kill.instance && $0.event > (facts.lastRefreshReply(before: kill) ?? .max) }
            }
        case .killDuringSessionEnd:
            return facts.storageKills.contains { kill in
                guard let command = index.commands.last(where: { $0.instance == kill.instance && $0.event < kill.event }) else {
                    return false
                }
                return [.signOut, .switchAccount].contains(command.value.kind)
            }
        case .launchWithStoredSession: return !facts.storedSessionLaunches.isEmpty
        case .launchWithRefusedSession:
            return facts.storedSessionLaunches.contains { instance in
                index.exchanges.contains { $0.instance == instance && ($0.isRejection || ($0.status == 401 && !$0.isAuthEndpoint)) }
            }
        case .launchAfterPrivateContent:
            return facts.storedSessionLaunches.contains { instance in
                index.ui.contains { $0.instance < instance && $0.value.kind == .content }
            }
        case .offlineLaunch:
            return facts.storedSessionLaunches.contains { instance in
                index.exchanges.contains {
                    guard $0.instance == instance, case .failure(let failure)? = $0.reply else { return false }
                    return failure.code == "offline"
                }
            }
        case .responseAfterSessionEnd:
            return facts.answeredAfterAnEnd { !$0.isAuthEndpoint }
        case .refreshResultAfterSessionEnd:
            return facts.answeredAfterAnEnd { $0.isRefresh }
        case .revocationFailed:
            return index.exchanges.contains { $0.endpoint == .revoke && RetryableRefreshBacksOff.retryable($0) }
        case .invalidSignInInput:
            return index.commands.contains { command in
                [.signIn, .switchAccount].contains(command.value.kind)
                    && (!SignInInputValidatedFirst.isPlausibleEmail(command.value.email ?? "")
                        || (command.value.password ?? "").count < 8)
            }
        case .storageLocked:
            return index.storageReads.contains { read in
                if case .error(let error)? = read.value.reply { return error.code == "locked" }
                return false
            } || index.storageChanges.contains { $0.secure && $0.outcome == .refused && facts.lockedReply(to: $0) }
        case .backgroundRefreshTask:
            return index.commands.contains { command in
                command.value.kind == .backgroundRefresh && facts.logins.contains { $0.exchange.replyEvent ?? .max < command.event }
            }
        case .clockSkewed:
            return facts.clockJumpedWhileSignedIn
        }
    }
}

/// What several detectors share, computed once per trace.
private struct SituationFacts {
    let index: TraceIndex
    let trace: Trace
    let logins: [(exchange: TraceIndex.Exchange, accountID: String?)]
    let refreshes: [TraceIndex.Exchange]
    /// Events after which a session was over: a sign-out or switch command once signed in, a rejected refresh.
    let sessionEnds: [(instance: Int, event: Int)]
    /// Kills that landed on a storage change (a kill point).
    let storageKills: [TraceIndex.Located<String>]
    /// Instances whose secure-storage read found something.
    let storedSessionLaunches: Set<Int>
    /// The app requests, each with the event of its first result (`.max` while it had none).
    let requests: [(command: TraceIndex.Located<AppCommand>, resultEvent: Int)]

    init(index: TraceIndex, trace: Trace) {
        self.index = index
        self.trace = trace
        logins = index.exchanges.filter { $0.isLogin && ($0.status ?? 0) / 100 == 2 }.map { exchange in
            (exchange, exchange.responseBody?.body["account_id"]?.string ?? exchange.issuedAccessToken)
        }
        refreshes = index.exchanges.filter { $0.isRefresh && ($0.status ?? 0) / 100 == 2 }
        let firstLogin = logins.compactMap(\.exchange.replyEvent).min() ?? .max
        sessionEnds = index.commands.filter { [.signOut, .switchAccount].contains($0.value.kind) && $0.event > firstLogin }
            .map { ($0.instance, $0.event) }
            + index.exchanges.filter { $0.isRefresh && $0.isRejection }.compactMap { exchange in
                exchange.replyEvent.map { (exchange.instance, $0) }
            }
        storageKills = index.kills.filter { $0.value.hasPrefix("killed before the storage write") || $0.value.hasPrefix("killed after the storage write") }
        storedSessionLaunches = Set(index.storageReads.compactMap { read in
            if case .value(let stored?)? = read.value.reply, !stored.isEmpty { return read.instance }
            return nil
        })
        var firstResult: [String: Int] = [:]
        for result in index.results where firstResult["\(result.instance)/\(result.value.id)"] == nil {
            firstResult["\(result.instance)/\(result.value.id)"] = result.event
        }
        requests = index.commands.filter { $0.value.kind == .request }.map { command in
            (command, firstResult["\(command.instance)/\(command.value.id)"] ?? .max)
        }
    }

    func time(of event: Int) -> Double { trace.events.indices.contains(event - 1) ? trace.events[event - 1].time : 0 }

    func lastEvent(of instance: Int) -> Int { trace.events.last { $0.instance == instance }?.number ?? 0 }

    /// App requests sent before the refresh was answered and not yet given their result when it was sent.
    func requestsWaiting(on refresh: TraceIndex.Exchange) -> Int {
        let answered = refresh.replyEvent ?? .max
        return requests.count { command, resultEvent in
            command.instance == refresh.instance && command.event < answered && resultEvent > refresh.event
        }
    }

    func lastRefreshReply(before kill: TraceIndex.Located<String>) -> Int? {
        refreshes.filter { $0.instance == kill.instance }.compactMap(\.replyEvent).filter { $0 < kill.event }.max()
    }

    /// An exchange sent before a session end of its process and answered after it.
    func answeredAfterAnEnd(_ include: (TraceIndex.Exchange) -> Bool) -> Bool {
        index.exchanges.contains { exchange in
            include(exchange) && sessionEnds.contains {
                $0.instance == exchange.instance && exchange.event < $0.event && (exchange.replyEvent ?? 0) > $0.event
            }
        }
    }

    func lockedReply(to change: TraceIndex.StorageChange) -> Bool {
        guard let answered = change.answeredAt, trace.events.indices.contains(answered - 1),
              case .sent(.reply(_, .error(let error))) = trace.events[answered - 1].kind else { return false }
        return error.code == "locked"
    }

    /// The device's wall clock moved against its monotonic clock (a skew or a jump) after a sign-in.
    var clockJumpedWhileSignedIn: Bool {
        guard let signedIn = logins.compactMap(\.exchange.replyEvent).min() else { return false }
        var offset: Double?
        for event in trace.events {
            guard case .sent(.clock(let reading)) = event.kind else { continue }
            let now = reading.wall - reading.monotonic
            if let previous = offset, abs(now - previous) > 1, event.number > signedIn { return true }
            offset = now
        }
        return false
    }
}
