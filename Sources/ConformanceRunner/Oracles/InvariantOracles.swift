import ConformanceProtocol

/// A new process can only hold stored credentials by reading them: the first request of an instance that
/// carries a token it did not get from a sign-in in that instance comes after a secure-storage read.
struct RestoreReadsCredentialsFirst: Oracle {
    let id = "restore-reads-credentials-first"
    let invariants: [String] = ["restoring-identity-before-validation"]
    let requirements = ["RESTORE-EXPLICIT-STATE"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var checked: Set<Int> = []
        for exchange in index.exchanges where !checked.contains(exchange.instance) {
            guard let token = exchange.request.bearerToken ?? exchange.presentedRefreshToken else { continue }
            checked.insert(exchange.instance)
            let issuedHere = index.exchanges.contains {
                $0.instance == exchange.instance && ($0.replyEvent ?? .max) < exchange.event
                    && ($0.issuedAccessToken == token || $0.issuedRefreshToken == token)
            }
            let read = index.storageReads.contains { $0.instance == exchange.instance && $0.event < exchange.event }
            guard !issuedHere, !read else { continue }
            findings.append(context.finding(
                requirements, id,
                "the process sent \(context.handles(in: token)) before it read secure storage: a restore reads the stored credentials first",
                [exchange.event]))
        }
        return findings
    }
}

/// Every launch checks the stored session before it decides between the signed-in and signed-out screens: a
/// process leaves restoring by its restore (validated or failed) only after it touched secure storage (a read, or a
/// delete, as a first run that wipes what an earlier install left). A preference or a flag in memory is not the
/// stored session.
struct LaunchChecksStoredSession: Oracle {
    let id = "launch-checks-stored-session"
    let invariants: [String] = ["restoring-identity-before-validation"]
    let requirements = ["RESTORE-CHECK-ON-LAUNCH"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<Int> = []
        for decision in index.transitions where !judged.contains(decision.instance)
            && ["restore-validated", "restore-failed"].contains(decision.message.transition ?? "") {
            judged.insert(decision.instance)
            let read = index.storageReads.contains { $0.instance == decision.instance && $0.event < decision.event }
            let deleted = index.storageChanges.contains {
                $0.instance == decision.instance && $0.secure && $0.operation == .delete && $0.event < decision.event
            }
            guard !read, !deleted else { continue }
            findings.append(context.finding(
                requirements, id,
                "the launch ended restoring ('\(decision.message.transition!)', to \(decision.message.to)) without reading secure storage: "
                    + "it must check the stored session before it decides",
                [decision.event]))
        }
        return findings
    }
}

/// A 401 for a request that carried an access token older than one the client already holds and stored is
/// retried with the newer token; it starts no refresh of its own. Unless the client's own expiry rule explains the
/// refresh: a client that refreshes ahead of expiry (a library's margin of a minute, say, which a short-lived token
/// is always within) refreshes before the retry whatever the 401 was. The rule is read from the trace: the refresh
/// is explained when the newest token had no more life left than it had at another refresh no 401 and no
/// background task asked for (`ExpiryRule`).
struct StaleUnauthorizedRetriedWithLatestToken: Oracle {
    let id = "stale-401-retried-with-latest-token"
    let invariants: [String] = ["authenticated-stale-401-uses-latest"]
    let requirements = ["REFRESH-USE-LATEST-TOKEN"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        // Indexed once, so a case with thousands of 401s stays linear: the exchanges that delivered an access
        // token (with when that token first reached secure storage), the refreshes, and each command's app requests.
        let issuings = index.exchanges.compactMap { issuing -> (exchange: TraceIndex.Exchange, stored: Int)? in
            guard let issued = issuing.issuedAccessToken,
                  let stored = index.storageWrites.first(where: { $0.secure && $0.value.contains(issued) })?.event
            else { return nil }
            return (issuing, stored)
        }
        let refreshes = index.exchanges.filter(\.isRefresh)
        var sends: [String: [TraceIndex.Exchange]] = [:]
        for exchange in index.exchanges where !exchange.isAuthEndpoint {
            if let cause = exchange.cause { sends["\(exchange.instance)/\(cause)", default: []].append(exchange) }
        }
        // Read from the trace only once a stale 401 is followed by its own refresh: most runs have none.
        lazy var expiryMargin = ExpiryRule.observedMargin(context)
        for refused in index.exchanges where refused.status == 401 && !refused.isAuthEndpoint {
            guard let old = refused.request.bearerToken, let cause = refused.cause, let replied = refused.replyEvent,
                  let oldToken = context.world.vault.token(old) else { continue }
            // A newer access token of the same session, delivered and stored before the 401 arrived.
            let newer = issuings.first { issuing, stored in
                guard issuing.instance == refused.instance, (issuing.replyEvent ?? .max) < replied, stored < replied,
                      let issued = issuing.issuedAccessToken, issued != old,
                      let token = context.world.vault.token(issued) else { return false }
                return token.family == oldToken.family && token.number > oldToken.number
            }
            guard newer != nil else { continue }
            // `cause` is optional in the protocol: a refresh that names no command may be this request's own.
            let ownRefresh = refreshes.first {
                $0.instance == refused.instance && ($0.cause == cause || $0.cause == nil) && $0.event > replied
            }
            let retry = sends["\(refused.instance)/\(cause)"].flatMap { sent in
                TraceIndex.firstIndex(in: sent, after: replied).map { sent[$0] }
            }
            if let ownRefresh, retry.map({ ownRefresh.event < $0.event }) ?? true,
               !ExpiryRule.explains(ownRefresh, margin: expiryMargin, context) {
                findings.append(context.finding(
                    requirements, id,
                    "a 401 for the replaced \(context.handles(in: old)) started a refresh; the request should have been retried with the stored newer token",
                    [replied, ownRefresh.event]))
            }
        }
        return findings
    }
}

/// A request refused while a refresh of its session is in flight is not re-sent until that refresh has
/// settled: it waits for the shared result instead of retrying with what it has.
struct RetriesWaitForTheRefresh: Oracle {
    let id = "retries-wait-for-the-refresh"
    let invariants: [String] = ["refreshing-other-401s-wait"]
    let requirements = ["REFRESH-SINGLE-FLIGHT"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        // Indexed once: the app requests of each command, and the refreshes with when each settled.
        var sends: [String: [TraceIndex.Exchange]] = [:]
        for exchange in index.exchanges where !exchange.isAuthEndpoint {
            if let cause = exchange.cause { sends["\(exchange.instance)/\(cause)", default: []].append(exchange) }
        }
        let refreshes = index.exchanges.filter(\.isRefresh).map { ($0, settled($0, index)) }
        for refused in index.exchanges where refused.status == 401 && !refused.isAuthEndpoint {
            guard let cause = refused.cause, let replied = refused.replyEvent,
                  let sent = sends["\(refused.instance)/\(cause)"], let next = TraceIndex.firstIndex(in: sent, after: replied)
            else { continue }
            let retry = sent[next]
            let pending = refreshes.first { refresh, settled in
                refresh.instance == refused.instance && refresh.event < retry.event && settled > retry.event
            }?.0
            guard let pending else { continue }
            // It did wait for a refresh: it carries an access token delivered after its 401 (its own refresh's, or the
            // shared one's) and not refused since. Another refresh started since (a client's own expiry rule) is not one
            // it must wait for; one that a 401 of the token it carries asked for is.
            let waited = retry.request.bearerToken.map { carried in
                let delivered = index.exchanges.first { $0.instance == retry.instance && $0.issuedAccessToken == carried }?.replyEvent
                let refused = index.exchanges.contains {
                    $0.instance == retry.instance && $0.request.bearerToken == carried && $0.status == 401
                        && ($0.replyEvent ?? .max) < retry.event
                }
                return (delivered ?? 0) > replied && !refused
            } ?? false
            guard !waited, !Self.decidedTogether(refused, retry: retry, pending: pending, context) else { continue }
            findings.append(context.finding(
                requirements, id,
                "a refused request was sent again while refresh #\(pending.event) was still in flight; it must wait for that refresh",
                [replied, pending.event, retry.event]))
        }
        return findings
    }

    /// A retry with a newer token than the one refused (a 401 for a replaced token: REFRESH-USE-LATEST-TOKEN), whose
    /// refusal reached the client together with the refusal that started `pending` (no client message between
    /// them): a client that handles replies on several threads decides on each before it knows of the other, so
    /// the retry may follow the refresh on the wire though it was decided first.
    private static func decidedTogether(_ refused: TraceIndex.Exchange, retry: TraceIndex.Exchange, pending: TraceIndex.Exchange,
                                        _ context: OracleContext) -> Bool {
        let vault = context.world.vault
        guard pending.cause != refused.cause, let replied = refused.replyEvent,
              let old = refused.request.bearerToken.flatMap({ vault.token($0) }),
              let carried = retry.request.bearerToken.flatMap({ vault.token($0) }),
              carried.family == old.family, carried.number > old.number,
              let trigger = context.index.exchanges.last(where: {
                  $0.instance == pending.instance && $0.cause == pending.cause && $0.status == 401 && !$0.isAuthEndpoint
                      && ($0.replyEvent ?? .max) < pending.event
              }),
              let triggered = trigger.replyEvent
        else { return false }
        let (first, last) = (min(replied, triggered), max(replied, triggered))
        return !context.trace.events[first..<(last - 1)].contains {
            if case .received = $0.kind { return true } else { return false }
        }
    }

    /// When a refresh stopped being in flight: its reply, the death of its process, or the client's giving up on
    /// it (its `abandon`, or `refresh-deferred` before any reply: its own deadline passed, as a timeout).
    private func settled(_ refresh: TraceIndex.Exchange, _ index: TraceIndex) -> Int {
        let reply = refresh.endedEvent ?? .max
        let killed = index.kills.first { $0.instance == refresh.instance && $0.event > refresh.event }?.event ?? .max
        let gaveUp = index.transitions.first {
            $0.instance == refresh.instance && $0.event > refresh.event && $0.message.transition == "refresh-deferred"
        }?.event ?? .max
        return min(reply, killed, gaveUp)
    }
}

/// Once a session has ended in signedOut and the client has settled, secure storage holds none of its access
/// tokens: nothing the request pipeline could still use. A refresh token kept only for a queued remote
/// revocation is allowed (SIGNOUT-REVOCATION-RETRY).
struct EndedSessionCredentialsCleared: Oracle {
    let id = "ended-session-credentials-cleared"
    let invariants: [String] = ["signed-out-no-credentials"]
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR", "REFRESH-REJECTION-ONE-TRANSITION"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        guard let lastInstance = index.launches.last?.value,
              !index.kills.contains(where: { $0.instance == lastInstance }),
              let last = index.transitions.last(where: { $0.instance == lastInstance }), last.message.to == "signedOut",
              let ending = index.transitions.last(where: { sessionEndingTransitions.contains($0.message.transition ?? "") })
        else { return [] }
        // Storage the device kept locked could not be cleared; signing out because of it is another oracle's. Nor
        // could storage whose last change the world refused (`storageFault: writeFailure`).
        let locked = index.storageReads.contains {
            guard $0.instance == lastInstance, case .error(let info)? = $0.value.reply else { return false }
            return info.code == "locked"
        } || Self.lastSecureChangeRefused(context, instance: lastInstance)
        // Tokens delivered after the session ended are a late result: the stale-refresh oracle's to judge.
        let liveAtEnd = Set(index.exchanges.filter { ($0.replyEvent ?? .max) < ending.event }.compactMap(\.issuedAccessToken))
        let kept = context.world.vault.contained(in: context.world.storage.secureText)
            .filter { $0.kind == .access && liveAtEnd.contains($0.value) }
        guard !locked, !kept.isEmpty else { return [] }
        let requirement = ["refresh-rejected", "restore-failed"].contains(ending.message.transition ?? "")
            ? "REFRESH-REJECTION-ONE-TRANSITION" : "SIGNOUT-BLOCK-AND-CLEAR"
        return [context.finding(
            [requirement], id,
            "the session ended at '\(ending.message.transition!)', yet secure storage still holds \(kept.map(\.handle).joined(separator: ", "))",
            [ending.event])]
    }

    /// Whether the instance's last secure-storage change was answered with an error.
    static func lastSecureChangeRefused(_ context: OracleContext, instance: Int) -> Bool {
        context.index.storageChanges.filter { $0.instance == instance && $0.secure && $0.answeredAt != nil }
            .max { $0.answeredAt! < $1.answeredAt! }?.outcome == .refused
    }
}

/// No login request carries input that fails the world's sign-in rule (an email with one `@` between
/// non-empty parts, a password of at least 8 characters, as docs/spec-format.md says under `signIn`): such
/// input is refused locally, before any request.
struct SignInInputValidatedFirst: Oracle {
    let id = "sign-in-input-validated-first"
    let invariants: [String] = ["signing-in-input-validated-first"]
    let requirements = ["SIGNIN-VALIDATE-INPUT"]

    func check(_ context: OracleContext) -> [Finding] {
        context.index.exchanges.filter(\.isLogin).compactMap { login in
            let email = login.request.body["email"]?.string ?? login.request.body["username"]?.string ?? ""
            let password = login.request.body["password"]?.string ?? ""
            guard !Self.isPlausibleEmail(email) || password.count < 8 else { return nil }
            return context.finding(
                requirements, id, "a login request was sent with input that fails local validation; it must be refused before any request",
                [login.event])
        }
    }

    /// Deliberately loose, so a client's own stricter rule never trips it: one `@` between non-empty parts.
    static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty } && !email.contains(where: \.isWhitespace)
    }
}

/// A client's rule for refreshing ahead of expiry, as far as the trace shows it. A refresh that no 401 of its
/// command asked for (since that command's last refresh) and no background-refresh task served came from the
/// client's clock: the token it replaced had, by the server's clock, that much life left, and the client still
/// refreshed. The largest such margin is the rule's, as observed; a refresh is explained by it when the token it
/// replaced had no more life left. Only refreshes before the device's clock was first set off the server's count:
/// a clock moved ahead makes any token look due, which says nothing of the rule.
enum ExpiryRule {
    static func observedMargin(_ context: OracleContext) -> Double? {
        let index = context.index
        let refreshes = index.exchanges.filter(\.isRefresh)
        let skewed = DeviceClock.firstSkew(context) ?? .max
        var margin: Double?
        for refresh in refreshes where refresh.event < skewed {
            let background = index.commands.contains {
                $0.instance == refresh.instance && $0.value.id == refresh.cause && $0.value.kind == .backgroundRefresh
            }
            guard !background, !index.answersOwnUnauthorized(refresh),
                  let left = SessionTokens.lifeLeft(at: refresh, context) else { continue }
            margin = max(margin ?? left, left)
        }
        return margin
    }

    static func explains(_ refresh: TraceIndex.Exchange, margin: Double?, _ context: OracleContext) -> Bool {
        guard let margin, let left = SessionTokens.lifeLeft(at: refresh, context) else { return false }
        return left <= margin
    }
}
