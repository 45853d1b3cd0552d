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

/// A 401 for a request that carried an access token older than one the client already holds and stored is
/// retried with the newer token; it starts no refresh of its own.
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
            if let ownRefresh, retry.map({ ownRefresh.event < $0.event }) ?? true {
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
            findings.append(context.finding(
                requirements, id,
                "a refused request was sent again while refresh #\(pending.event) was still in flight; it must wait for that refresh",
                [replied, pending.event, retry.event]))
        }
        return findings
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
