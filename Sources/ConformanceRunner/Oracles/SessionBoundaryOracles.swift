import ConformanceProtocol

/// After a session ends (sign-out, rejection, switch), none of its access tokens is sent again, and nothing
/// authenticated is sent while signed out.
struct NoRequestWithEndedSessionToken: Oracle {
    let id = "no-request-with-ended-session-token"
    let invariants: [String] = ["signed-out-no-authenticated-request", "signing-in-previous-session-ended"]
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR", "EPOCH-DISCARD-STALE-RESPONSES", "REFRESH-REJECTION-CANCELS-PENDING"]

    /// Who ended the session decides what a later use of it breaks.
    static func requirement(endedBy transition: String?) -> String {
        switch transition {
        case "account-switch", "switch-during-refresh": "EPOCH-DISCARD-STALE-RESPONSES"
        case "refresh-rejected", "restore-failed": "REFRESH-REJECTION-CANCELS-PENDING"
        default: "SIGNOUT-BLOCK-AND-CLEAR"
        }
    }

    /// Whether a request sent while reported signed out carries the token of a sign-in still in progress: a login
    /// answered since the client's last transition, for a command not answered yet. A client that never shows
    /// `signingIn` (an optional transition) sends its first requests of the new session from `signedOut`.
    static func signingIn(_ exchange: TraceIndex.Exchange, _ index: TraceIndex) -> Bool {
        let since = index.transitions.last { $0.instance == exchange.instance && $0.event < exchange.event }?.event ?? 0
        return index.exchanges.contains { login in
            guard login.instance == exchange.instance, login.isLogin, let reply = login.replyEvent, reply > since,
                  reply < exchange.event, login.issuedAccessToken == exchange.request.bearerToken else { return false }
            return login.cause.map { cause in
                !index.results.contains { $0.instance == login.instance && $0.value.id == cause && $0.event < exchange.event }
            } ?? true
        }
    }

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        for end in index.transitions where sessionEndingTransitions.contains(end.message.transition ?? "") {
            let ended = Set(index.exchanges.filter { ($0.replyEvent ?? .max) < end.event }.compactMap(\.issuedAccessToken))
            // In a later process, an end the device refused to store at all is excused (the durability oracle's rule).
            let refusedEverything = EndedSessionNeverResurrected.storageRefusedEveryChange(after: end, context)
            if let reuse = index.exchanges.first(where: {
                $0.event > end.event && $0.request.bearerToken.map(ended.contains) == true
                    && !(refusedEverything && $0.instance > end.instance)
            }) {
                findings.append(context.finding(
                    [Self.requirement(endedBy: end.message.transition)], id,
                    "\(context.handles(in: reuse.request.bearerToken ?? "")) of the session that ended at '\(end.message.transition!)' was sent again",
                    [end.event, reuse.event]))
            }
        }
        for exchange in index.exchanges where exchange.request.bearerToken != nil {
            guard index.state(before: exchange.event, instance: exchange.instance) == "signedOut",
                  !Self.signingIn(exchange, index) else { continue }
            let end = index.sessionEnd(before: exchange.event, instance: exchange.instance)
            findings.append(context.finding(
                [Self.requirement(endedBy: end?.message.transition)], id,
                "an authenticated request (\(exchange.request.method) \(exchange.request.path)) was sent while signed out"
                    + (end.map { " after '\($0.message.transition!)'" } ?? ""),
                [exchange.event]))
        }
        return findings
    }
}

/// A session end settles what the session had pending, and never as a success: a request the end cut off did
/// not succeed, so a client that reports the cancellation as an empty success, or lets the ended session's
/// response through, tells the screen the request went through. An `ok` is accepted only for a request whose
/// 2xx response was in before the end began (the client may still be storing it when the end comes).
/// How soon depends on the words of the requirement the end falls under, charged by who ended the session:
/// - a sign-out (SIGNOUT-BLOCK-AND-CLEAR, "immediately") fails every pending request in its own step, before
///   the world answers what was on the wire;
/// - a rejection or a failed restore (REFRESH-REJECTION-CANCELS-PENDING, "cancels pending requests") fails in
///   its step every request that was waiting on the session rather than on the wire; one on the wire may be
///   failed when its response comes back;
/// - a switch (EPOCH-DISCARD-STALE-RESPONSES) asks only that the old generation's response be discarded
///   ("old request returns → epoch mismatch; discard response"): the request may fail when it returns.
struct SessionEndEndsPendingRequests: Oracle {
    let id = "session-end-ends-pending-requests"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR", "EPOCH-DISCARD-STALE-RESPONSES", "REFRESH-REJECTION-CANCELS-PENDING"]

    /// The command that starts an end the user asks for.
    static func askedBy(_ transition: String) -> CommandKind? {
        switch transition {
        case "sign-out", "sign-out-during-refresh", "restore-sign-out": .signOut
        case "account-switch", "switch-during-refresh": .switchAccount
        default: nil
        }
    }

    /// Which pending requests the end must fail in its own step.
    enum Deadline {
        case everyRequest, requestsOffTheWire, none
    }

    static func deadline(_ transition: String) -> Deadline {
        switch NoRequestWithEndedSessionToken.requirement(endedBy: transition) {
        case "SIGNOUT-BLOCK-AND-CLEAR": .everyRequest
        case "REFRESH-REJECTION-CANCELS-PENDING": .requestsOffTheWire
        default: .none
        }
    }

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<String> = []
        for end in index.transitions {
            guard let transition = end.message.transition, sessionEndingTransitions.contains(transition) else { continue }
            // A process killed in the step of the end had no chance to answer.
            guard !index.kills.contains(where: { $0.instance == end.instance && $0.step == end.step }) else { continue }
            // An end the user asks for starts with the command: a result sent between the command and the
            // transition is one the end gave (a client may settle its requests before it says it ended).
            let previous = index.transitions.last { $0.instance == end.instance && $0.event < end.event }?.event ?? 0
            var start = end.event
            if let kind = Self.askedBy(transition), let asked = index.commands.last(where: {
                $0.instance == end.instance && $0.value.kind == kind && $0.event > previous && $0.event < end.event
            }) {
                start = asked.event
            }
            for command in index.commands where command.instance == end.instance && command.event < start
                && command.value.kind == .request && !judged.contains(command.value.id) {
                let result = index.results.first { $0.instance == end.instance && $0.value.id == command.value.id }
                guard result.map({ $0.event > start }) ?? true else { continue }
                judged.insert(command.value.id)
                let exchanges = index.exchanges.filter { $0.instance == end.instance && $0.cause == command.value.id }
                let onTheWire = exchanges.contains { $0.event < start && ($0.endedEvent ?? .max) > start }
                // The first reply the world delivered after the end began to a request this command had on the wire.
                let lateReply = exchanges.filter { $0.event < end.event }.compactMap(\.replyEvent).filter { $0 > start }.min()
                let servedBefore = exchanges.contains {
                    ($0.replyEvent ?? .max) < start && $0.responseBody.map { (200..<300).contains($0.status) } == true
                }
                let mustFailInStep = switch Self.deadline(transition) {
                case .everyRequest: true
                case .requestsOffTheWire: !onTheWire
                case .none: false
                }
                let what: String
                if let result, result.value.succeeded, !servedBefore {
                    what = "got an ok result, as if it had succeeded"
                } else if mustFailInStep, let result, let lateReply, result.event > lateReply {
                    what = "got its result only after the world answered its request"
                } else if mustFailInStep, let result, result.step != end.step {
                    what = "got its result only at step \(result.step + 1)"
                } else if mustFailInStep, result == nil {
                    what = "never got a result"
                } else {
                    continue
                }
                findings.append(context.finding(
                    [NoRequestWithEndedSessionToken.requirement(endedBy: transition)], id,
                    "request \(command.value.id) was pending when the session ended ('\(transition)') and \(what)"
                        + (mustFailInStep ? ": the end must fail it at once" : ": the ended session's response must be discarded"),
                    [command.event, end.event] + [result?.event, lateReply].compactMap { $0 }))
            }
        }
        return findings
    }
}

/// A refresh result that arrives after its session ended is discarded: its tokens are never stored or sent.
struct StaleRefreshResultDiscarded: Oracle {
    let id = "stale-refresh-result-discarded"
    let invariants: [String] = ["signed-out-no-late-credential-write", "authenticated-no-stale-generation-update", "signing-in-no-stale-generation-update"]
    let requirements = ["EPOCH-DISCARD-STALE-REFRESH"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        for refresh in index.exchanges where refresh.isRefresh {
            guard let delivered = refresh.replyEvent, let access = refresh.issuedAccessToken,
                  let newRefresh = refresh.issuedRefreshToken,
                  let end = Self.sessionEnd(beforeResultOf: refresh, index) else { continue }
            if let write = index.storageWrites.first(where: {
                $0.event > delivered && ($0.value.contains(access) || $0.value.contains(newRefresh))
            }) {
                findings.append(context.finding(
                    requirements, id, "a refresh result that arrived after '\(end.message.transition!)' was written to storage",
                    [end.event, delivered, write.event]))
            } else if let use = index.exchanges.first(where: {
                $0.event > delivered && ($0.request.bearerToken == access || $0.presentedRefreshToken == newRefresh)
            }) {
                findings.append(context.finding(
                    requirements, id, "a refresh result that arrived after '\(end.message.transition!)' was used",
                    [end.event, delivered, use.event]))
            }
        }
        return findings
    }

    /// The first session end of the refresh's process after it was sent and before its result arrived: the result is
    /// stale when there is one. A sign-in that succeeded in between ends the refresh's session too, reported or not
    /// (a client that signs in over a live session never reports its end): unless the refresh presented a token
    /// that sign-in's own login issued, its result belongs to the session before.
    static func sessionEnd(beforeResultOf refresh: TraceIndex.Exchange, _ index: TraceIndex) -> TraceIndex.Transition? {
        guard let delivered = refresh.replyEvent else { return nil }
        return index.transitions.first {
            guard $0.instance == refresh.instance && $0.event > refresh.event && $0.event < delivered else { return false }
            if sessionEndingTransitions.contains($0.message.transition ?? "") { return true }
            return $0.message.transition == "sign-in-succeeded" && !presentsTokenOfItsLogin(refresh, signIn: $0, index)
        }
    }

    private static func presentsTokenOfItsLogin(_ refresh: TraceIndex.Exchange, signIn: TraceIndex.Transition, _ index: TraceIndex) -> Bool {
        guard let presented = refresh.presentedRefreshToken,
              let login = index.exchanges.last(where: { $0.instance == signIn.instance && $0.isLogin && $0.event < signIn.event }),
              let issuer = index.exchanges.first(where: { $0.issuedRefreshToken == presented }) else { return false }
        return issuer.event >= login.event
    }
}

/// Each sign-out shows the sign-in screen at most once: never one prompt per failing screen.
struct OneSignInPromptPerSignOut: Oracle {
    let id = "one-sign-in-prompt-per-sign-out"
    let invariants: [String] = ["signed-out-single-sign-in-prompt"]
    let requirements = ["SIGNIN-PROMPT-ONCE"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        var allowance: [Int: Int] = [:]
        var lastPrompt: [Int: Int] = [:]
        let events = index.transitions.map { (event: $0.event, instance: $0.instance, transition: $0.message as TransitionEvent?) }
            + index.ui.filter { $0.value.kind == .signInPrompt }.map { (event: $0.event, instance: $0.instance, transition: nil) }
        for item in events.sorted(by: { $0.event < $1.event }) {
            if let transition = item.transition {
                if transition.to == "signedOut" { allowance[item.instance] = 1 }
                if transition.to == "signingIn" || transition.to == "authenticated" { allowance[item.instance] = 0 }
                continue
            }
            if allowance[item.instance, default: 0] > 0 {
                allowance[item.instance]! -= 1
                lastPrompt[item.instance] = item.event
            } else {
                let earlier = lastPrompt[item.instance].map { [$0] } ?? []
                findings.append(context.finding(
                    requirements, id,
                    earlier.isEmpty ? "a sign-in prompt was shown without a transition to signedOut"
                        : "a second sign-in prompt was shown for the same sign-out",
                    earlier + [item.event]))
            }
        }
        return findings
    }
}

/// Only an explicit rejection (400 invalid_grant, a revoked session) or the user signs a session out;
/// timeouts, 5xx, offline and a locked device do not. A restore may also fail for lack of credentials.
struct OnlyExplicitRejectionSignsOut: Oracle {
    let id = "only-explicit-rejection-signs-out"
    let invariants: [String] = ["refreshing-no-signout-on-retryable", "restoring-locked-storage-keeps-restoring"]
    let requirements = ["REFRESH-ONLY-REJECTION-SIGNS-OUT", "STORAGE-LOCKED-NOT-SIGNOUT"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        for end in index.transitions where end.message.to == "signedOut" {
            let name = end.message.transition ?? ""
            let windowStart = index.transitions.last {
                $0.instance == end.instance && $0.event < end.event && ($0.message.to == "authenticated" || $0.message.to == "restoring")
            }?.event ?? 0
            switch name {
            case "sign-out", "sign-out-during-refresh", "restore-sign-out":
                // Asked since the session was last entered, or before it and still unanswered then: a switch that
                // waits for its revocation while a refresh completes ends the session it was asked to end.
                let asked = index.commands.contains { command in
                    command.instance == end.instance && command.event < end.event
                        && (command.value.kind == .signOut || command.value.kind == .switchAccount)
                        && (command.event > windowStart || !index.results.contains {
                            $0.instance == command.instance && $0.value.id == command.value.id && $0.event < windowStart
                        })
                }
                if !asked {
                    findings.append(context.finding(
                        ["REFRESH-ONLY-REJECTION-SIGNS-OUT"], id, "the client signed out on its own; nobody asked it to",
                        [end.event]))
                }
            case "refresh-rejected", "restore-failed":
                // (A user's sign-out reported as one of these is read as the sign-out: `TransitionResolution`.)
                // What is forbidden is signing out because of a retryable failure or a locked device.
                let window = index.exchanges.filter { $0.instance == end.instance && $0.event > windowStart && $0.event < end.event }
                // A reply that came in the window explains the end too, though its request was sent before it: the
                // late reply of a refresh the client had deferred on its own deadline.
                let answered = index.exchanges.filter {
                    $0.instance == end.instance && ($0.replyEvent ?? 0) > windowStart && ($0.replyEvent ?? .max) < end.event
                }
                let rejected = (window + answered).contains { exchange in
                    guard let response = exchange.responseBody, (exchange.replyEvent ?? .max) < end.event else { return false }
                    let error = response.body["error"]?.string
                    return (response.status == 400 && error == "invalid_grant") || error == "session_revoked"
                        || (exchange.isRefresh && response.status == 401)
                }
                // A revocation's failure is retried by its own worker; it never explains a session's end. A 429
                // (too many requests) asks the client to slow down: no rejection either.
                let retryable = window.filter { exchange in
                    guard (exchange.replyEvent ?? .max) < end.event, exchange.endpoint != .revoke else { return false }
                    if case .failure? = exchange.reply { return true }
                    return (exchange.status ?? 0) >= 500 || exchange.status == 429
                }
                let reads = index.storageReads.filter { $0.instance == end.instance && $0.event > windowStart && $0.event < end.event }
                // A locked read explains the end only while the client never read the store since: once a read
                // succeeded, the client knows what the store holds, and a restore that finds no live session may end.
                // A read that found a session nobody ended (a token of a family no earlier end ended) excuses nothing.
                let lastRead = reads.last { if case .error? = $0.value.reply { return false } else { return $0.value.reply != nil } }
                    .flatMap { read in Self.foundLiveSession(read, context) ? nil : read }
                let locked = reads.filter { read in
                    guard case .error(let info)? = read.value.reply, info.code == "locked" else { return false }
                    return lastRead.map { read.event > $0.event } ?? true
                }
                // An access token the server refused (a 401 that is no revoked session) is a reason to refresh, not
                // to sign out: an end with no refresh tried since such a 401 never asked the server about the session.
                // Only a request that carried a token the server issued: one with none (a client with no session
                // asking who is signed in) has no refresh token to try.
                let refusedUntried = window.filter { refused in
                    guard !refused.isAuthEndpoint, refused.status == 401, let answered = refused.replyEvent, answered < end.event,
                          refused.request.bearerToken.flatMap({ context.world.vault.token($0) }) != nil,
                          refused.responseBody?.body["error"]?.string != "session_revoked" else { return false }
                    return !index.exchanges.contains {
                        $0.instance == end.instance && $0.isRefresh && $0.event > windowStart && $0.event < end.event
                    }
                }
                if !rejected, retryable.isEmpty, locked.isEmpty, let refused = refusedUntried.first {
                    findings.append(context.finding(
                        ["REFRESH-ONLY-REJECTION-SIGNS-OUT"], id,
                        "the client signed out ('\(name)') when an access token was refused (401, not a revoked session) without trying its refresh token",
                        [refused.event, end.event]))
                    continue
                }
                guard !rejected, !retryable.isEmpty || !locked.isEmpty else { continue }
                findings.append(context.finding(
                    [locked.isEmpty ? "REFRESH-ONLY-REJECTION-SIGNS-OUT" : "STORAGE-LOCKED-NOT-SIGNOUT"], id,
                    locked.isEmpty
                        ? "the client signed out ('\(name)') after a retryable failure, without an explicit rejection from the server"
                        : "the client signed out ('\(name)') because secure storage was locked; that is not a rejection",
                    Array((retryable.map(\.event) + locked.map(\.event)).sorted().prefix(3)) + [end.event]))
            default:
                break
            }
        }
        return findings
    }

    /// Whether a successful read returned a token of a session that no session end before it ended.
    static func foundLiveSession(_ read: TraceIndex.Located<(key: String, reply: ReplyBody?)>, _ context: OracleContext) -> Bool {
        guard case .value(let value?)? = read.value.reply else { return false }
        let families = Set(context.world.vault.contained(in: value).map(\.family))
        guard !families.isEmpty else { return false }
        // A sign-in that failed or was cancelled after the server issued its tokens gave that session up too.
        let givenUp = sessionEndingTransitions.union(["sign-in-failed", "sign-in-cancelled"])
        let ended = Set(context.index.transitions.filter {
            $0.event < read.event && givenUp.contains($0.message.transition ?? "")
        }.compactMap { endedTokens($0, context)?.family })
        return !families.isSubset(of: ended)
    }
}

/// A launch reaches `authenticated` only after the server validated the session: a token in storage is
/// not enough. A session the server issued by a login (a password grant) was not taken from storage either:
/// whether the user asked for that login is `no-silent-sign-in-after-rejection`'s to judge.
struct RestoreValidatedWithServer: Oracle {
    let id = "restore-validated-with-server"
    let invariants: [String] = ["restoring-no-authenticated-screen"]
    let requirements = ["RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED"]

    func check(_ context: OracleContext) -> [Finding] {
        context.index.transitions.compactMap { transition in
            guard transition.message.transition == "restore-validated" else { return nil }
            let validated = context.index.exchanges.contains {
                $0.instance == transition.instance && ($0.replyEvent ?? .max) < transition.event
                    && ($0.status ?? 0) / 100 == 2 && ($0.isRefresh || $0.isLogin || !$0.isAuthEndpoint)
            }
            guard !validated else { return nil }
            return context.finding(
                requirements, id, "the client entered authenticated after launch without validating the session with the server",
                [transition.event])
        }
    }
}

/// A session the server rejected (400 invalid_grant on a refresh, a revoked session) ends, and the user is asked
/// to sign in: the client does not silently sign in again with credentials it kept (re-running the password
/// grant), which would undo the end the rejection asks for. Judged: a login request, after a rejection in the
/// same process, that no `signIn` or `switchAccount` asked for: its cause names another command, or (with no
/// cause) no such command of the process was waiting for its result when it was sent.
struct NoSilentSignInAfterRejection: Oracle {
    let id = "no-silent-sign-in-after-rejection"
    let invariants: [String] = []
    let requirements = ["REFRESH-REJECTION-ONE-TRANSITION"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<Int> = []
        for login in index.exchanges where login.isLogin && !judged.contains(login.instance) {
            guard let rejection = index.exchanges.first(where: {
                $0.instance == login.instance && $0.isRejection && ($0.replyEvent ?? .max) < login.event
            }), !Self.askedByTheUser(login, index) else { continue }
            judged.insert(login.instance)
            findings.append(context.finding(
                requirements, id,
                "a login no signIn or switchAccount asked for was sent after the server rejected the session: the client signed in again on its own instead of ending the session and prompting the user",
                [rejection.replyEvent ?? rejection.event, login.event]))
        }
        return findings
    }

    /// Whether a `signIn` or `switchAccount` asked for the login: its cause names one, or (with no cause) one of the
    /// process was waiting for its result when the login was sent.
    static func askedByTheUser(_ login: TraceIndex.Exchange, _ index: TraceIndex) -> Bool {
        let signIns = index.commands.filter {
            $0.instance == login.instance && $0.event < login.event && [.signIn, .switchAccount].contains($0.value.kind)
        }
        if let cause = login.cause { return signIns.contains { $0.value.id == cause } }
        return signIns.contains { command in
            !index.results.contains { $0.instance == login.instance && $0.value.id == command.value.id && $0.event < login.event }
        }
    }
}

/// While a session is live its credentials come from one place, its refresh: a login (a password grant) that no
/// `signIn` or `switchAccount` asked for, sent while the process is authenticated or refreshing, is a request that
/// obtained credentials of its own instead of waiting for the session's refresh (a password-grant library that
/// answers every request refused during a refresh with a grant of its own). One finding per process; a login after
/// the server rejected the session is no-silent-sign-in-after-rejection's.
struct LoginsAskedForByTheUser: Oracle {
    let id = "logins-asked-for-by-the-user"
    let invariants: [String] = []
    let requirements = ["REFRESH-SINGLE-FLIGHT"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<Int> = []
        for login in index.exchanges where login.isLogin && !judged.contains(login.instance) {
            guard !NoSilentSignInAfterRejection.askedByTheUser(login, index),
                  !index.exchanges.contains(where: { $0.instance == login.instance && $0.isRejection && ($0.replyEvent ?? .max) < login.event }),
                  let state = index.state(before: login.event, instance: login.instance), ["authenticated", "refreshing"].contains(state)
            else { continue }
            judged.insert(login.instance)
            findings.append(context.finding(
                requirements, id,
                "a login no signIn or switchAccount asked for was sent while the session was \(state): the client obtained credentials by a grant of its own instead of sharing the session's refresh",
                [login.event]))
        }
        return findings
    }
}
