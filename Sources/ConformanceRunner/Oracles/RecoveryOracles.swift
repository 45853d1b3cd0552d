import ConformanceProtocol

/// A refresh deferred after a retryable failure is tried again: the session is kept so that it can recover
/// ("Timeouts, 5xx and offline are retryable; keep the session and back off", 001). Judged: a refresh of the process
/// failed retryably, and the refreshes sent after it, if any, failed retryably too or succeeded (the last one
/// answered); `patience` after the last of them (longer than any backoff a client needs), with the session still
/// authenticated and the device not told it is offline, a request fails at once, with nothing sent for it. The client
/// kept the failure as the answer to every request instead of retrying the refresh, or kept it even after a retry
/// succeeded. A new session (a sign-in, a switch), a rejected refresh or a new process ends the question; so does
/// secure storage refusing a read or a write (the client may not reach, or may not keep, its refresh token).
struct DeferredRefreshTriedAgain: Oracle {
    let id = "deferred-refresh-tried-again"
    let invariants: [String] = []
    let requirements = ["REFRESH-RETRYABLE-BACKOFF"]
    /// Fifteen minutes of virtual time: a capped exponential backoff has tried again several times by then.
    static let patience: Double = 900

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        let time = { (event: Int) in context.trace.events[event - 1].time }
        var judged: Set<Int> = []
        var findings: [Finding] = []
        for failed in index.exchanges where failed.isRefresh && RetryableRefreshBacksOff.retryable(failed) {
            let instance = failed.instance
            let later = index.exchanges.filter { $0.instance == instance && $0.event > failed.event && ($0.isRefresh || $0.isLogin) }
            // Judged from the last refresh; a later retryable failure is judged as its own `failed`.
            let succeeded = { (exchange: TraceIndex.Exchange) in (200..<300).contains(exchange.status ?? 0) }
            guard !judged.contains(instance), let ended = (later.last ?? failed).endedEvent,
                  later.allSatisfy({ $0.isRefresh && (RetryableRefreshBacksOff.retryable($0) || succeeded($0)) }),
                  later.last.map(succeeded) ?? true,
                  !(later.last.map { Self.storageWriteRefused(in: instance, after: $0.event, index) } ?? false)
            else { continue }
            for command in index.commands where command.instance == instance && command.value.kind == .request
                && command.event > ended && time(command.event) - time(ended) >= Self.patience
            {
                guard let result = index.results.first(where: {
                          $0.instance == instance && $0.event > command.event && $0.value.id == command.value.id
                      }),
                      !result.value.succeeded,
                      !index.exchanges.contains(where: { $0.instance == instance && $0.event > command.event && $0.event < result.event }),
                      index.state(before: command.event, instance: instance) == "authenticated",
                      (index.sessionEnd(before: command.event, instance: instance)?.event ?? 0) < failed.event,
                      !Self.toldOffline(before: command.event, index),
                      !Self.storageRefused(in: instance, after: failed.event, before: command.event, index)
                else { continue }
                judged.insert(instance)
                let since = Int(time(command.event) - time(ended))
                let what = later.last.map { "was tried again and succeeded (event #\($0.event)), yet \(since) s later" }
                    ?? "was never tried again: \(since) s later"
                findings.append(context.finding(
                    requirements, id,
                    "a refresh failed for a retryable reason (\(OfflineRevocationRetried.describe(failed))) and \(what), authenticated and online, a request failed at once with nothing sent",
                    [failed.event] + (later.last.map { [$0.event] } ?? []) + [command.event, result.event]))
                break
            }
        }
        return findings
    }

    /// Whether the last connectivity signal before `event` said the device is offline.
    static func toldOffline(before event: Int, _ index: TraceIndex) -> Bool {
        index.commands.last { $0.event < event && [.online, .offline].contains($0.value.kind) }?.value.kind == .offline
    }

    /// Whether a secure-storage write of `instance` after `start` was refused (the refreshed pair may not be kept).
    static func storageWriteRefused(in instance: Int, after start: Int, _ index: TraceIndex) -> Bool {
        index.storageChanges.contains { $0.instance == instance && $0.secure && $0.event > start && $0.outcome == .refused }
    }

    static func storageRefused(in instance: Int, after start: Int, before end: Int, _ index: TraceIndex) -> Bool {
        index.storageReads.contains {
            $0.instance == instance && $0.event > start && $0.event < end
                && { if case .error? = $0.value.reply { true } else { false } }($0)
        }
    }
}

/// A session the user signed out of has its refresh token revoked at the server: "On an explicit sign-out, ...
/// remote revocation may need a later retry" (000) presumes the client asks for it. Only an explicit sign-out:
/// the design ties revocation to nothing else (a switch ends the previous session locally). Judged only when
/// nothing was ever sent to revoke any token of the ended session (a revocation that failed is `offline-revocation-retried`'s), the
/// server did not revoke the session itself, and the app had a chance since: in a later step the same process
/// (not killed meanwhile) got a response from the server.
struct EndedSessionRevoked: Oracle {
    let id = "ended-session-revoked"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-REVOCATION-RETRY"]
    static let userEnds: Set<String> = ["sign-out", "sign-out-during-refresh"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        let revokedFamilies = Set(index.exchanges.filter { $0.endpoint == .revoke }.compactMap {
            $0.presentedRevokedToken.flatMap { context.world.vault.token($0)?.family }
        })
        var judged: Set<Int> = []
        var findings: [Finding] = []
        for end in index.transitions where Self.userEnds.contains(end.message.transition ?? "") {
            guard let token = Self.sessionToken(before: end, index), let family = context.world.vault.token(token)?.family,
                  !judged.contains(family), !revokedFamilies.contains(family), !context.world.auth.isFamilyRevoked(of: token),
                  let chance = Self.chance(after: end, context)
            else { continue }
            judged.insert(family)
            findings.append(context.finding(
                requirements, id,
                "the session of \(context.handles(in: token)) was ended by \(end.message.transition ?? "a transition"), and the app then \(chance.what), but never asked the server to revoke it",
                [end.event, chance.event]))
        }
        return findings
    }

    /// A token of the session the process used last before `end`: issued to it, presented to refresh, or sent
    /// as a bearer token.
    static func sessionToken(before end: TraceIndex.Transition, _ index: TraceIndex) -> String? {
        for exchange in index.exchanges.reversed() where exchange.instance == end.instance && exchange.event < end.event {
            if let token = exchange.issuedRefreshToken ?? exchange.presentedRefreshToken
                ?? (exchange.isAuthEndpoint ? nil : exchange.request.bearerToken) { return token }
        }
        return nil
    }

    /// The first response from the server the same process got in a later step, not killed meanwhile. None when
    /// a secure-storage write failed in the end's step (the revocation may have missed its durable queue, to be
    /// sent at a later launch), and none while a revocation the process sent is unanswered or failed and not yet
    /// sent again successfully (a queue sends one at a time, and backs off).
    private static func chance(after end: TraceIndex.Transition, _ context: OracleContext) -> (event: Int, what: String)? {
        let index = context.index
        let step = { (event: Int) in context.trace.events[event - 1].step }
        let refusedWrite = index.storageChanges.contains {
            $0.instance == end.instance && $0.secure && $0.outcome == .refused && step($0.event) == end.step
        }
        guard !refusedWrite else { return nil }
        let killed = index.kills.first { $0.instance == end.instance && $0.event > end.event }?.event ?? .max
        let revocations = index.exchanges.filter { $0.instance == end.instance && $0.endpoint == .revoke }
        // A revocation sent before `event` still unanswered, or failed and not yet sent again successfully: the
        // queue is waiting for it (its answer, or its backoff).
        let queueBlocked = { (event: Int) in
            revocations.contains { sent in
                guard sent.event < event else { return false }
                guard let ended = sent.endedEvent, ended < event else { return true }
                return OfflineRevocationRetried.unreachable(sent) && !revocations.contains {
                    $0.event > sent.event && $0.event < event && $0.presentedRevokedToken == sent.presentedRevokedToken
                        && !OfflineRevocationRetried.unreachable($0) && ($0.endedEvent ?? .max) < event
                }
            }
        }
        let reached = index.exchanges.first { exchange in
            exchange.instance == end.instance && exchange.step > end.step && exchange.event < killed
                && exchange.endpoint != .revoke && exchange.responseBody.map { $0.status < 500 } == true
                && !queueBlocked(exchange.event)
        }
        return reached.map { ($0.event, "reached the server in a later step") }
    }
}

/// A sign-in that failed leaves `signingIn`: the state diagram's `signingIn` ends by sign-in-succeeded or
/// sign-in-failed. Judged at the next command sent to the process in a later step than the failed result, when no
/// other sign-in of the process is still unanswered: a client that reports `signingIn` is then still in it.
struct FailedSignInLeavesSigningIn: Oracle {
    let id = "failed-sign-in-leaves-signing-in"
    let invariants: [String] = []
    let requirements = ["SESSION-STATE-MACHINE"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        let signIns = index.commands.filter { [.signIn, .switchAccount].contains($0.value.kind) }
        var findings: [Finding] = []
        for command in signIns {
            let instance = command.instance
            guard let result = index.results.first(where: { $0.instance == instance && $0.event > command.event && $0.value.id == command.value.id }),
                  let error = result.value.error,
                  let next = index.commands.first(where: { $0.instance == instance && $0.event > result.event && $0.step > result.step }),
                  index.state(before: next.event, instance: instance) == "signingIn"
            else { continue }
            let outstanding = signIns.contains { other in
                other.instance == instance && other.event < next.event && other.value.id != command.value.id
                    && !index.results.contains { $0.instance == instance && $0.value.id == other.value.id && $0.event < next.event }
            }
            guard !outstanding else { continue }
            findings.append(context.finding(
                requirements, id,
                "a sign-in failed (\(error.code)) and the client was still signingIn at the next step: a failed sign-in ends by sign-in-failed",
                [result.event, next.event]))
        }
        return findings
    }
}
