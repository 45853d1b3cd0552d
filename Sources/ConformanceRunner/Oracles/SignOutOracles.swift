import ConformanceProtocol
import SimulatedWorld

/// Sign-out ends what the session had pending at once: every request the app was waiting on gets its result in
/// the step of the sign-out, before the world answers the request that was on the wire, never after it.
struct SignOutEndsPendingRequests: Oracle {
    let id = "sign-out-ends-pending-requests"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR"]
    /// The transitions of an explicit sign-out (SIGNOUT-BLOCK-AND-CLEAR's).
    static let signOuts: Set<String> = ["sign-out", "sign-out-during-refresh", "restore-sign-out"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<String> = []
        for end in index.transitions where Self.signOuts.contains(end.message.transition ?? "") {
            // A process killed in the step of the sign-out had no chance to answer.
            guard !index.kills.contains(where: { $0.instance == end.instance && $0.step == end.step }) else { continue }
            for command in index.commands where command.instance == end.instance && command.event < end.event
                && command.value.kind == .request && !judged.contains(command.value.id) {
                let result = index.results.first { $0.instance == end.instance && $0.value.id == command.value.id }
                guard result.map({ $0.event > end.event }) ?? true else { continue }
                judged.insert(command.value.id)
                // The first reply the world delivered after the sign-out to a request this command had on the wire.
                let lateReply = index.exchanges.filter {
                    $0.instance == end.instance && $0.cause == command.value.id && $0.event < end.event
                }.compactMap(\.replyEvent).filter { $0 > end.event }.min()
                let answeredInStep = result.map { $0.step == end.step } ?? false
                let answeredBeforeReply = result.map { result in lateReply.map { result.event < $0 } ?? true } ?? false
                guard !(answeredInStep && answeredBeforeReply) else { continue }
                let what = result == nil ? "never got a result"
                    : answeredBeforeReply ? "got its result only at step \(result!.step + 1)"
                    : "got its result only after the world answered its request"
                findings.append(context.finding(
                    requirements, id,
                    "request \(command.value.id) was pending when the user signed out ('\(end.message.transition!)') and \(what): sign-out must end it at once",
                    [command.event, end.event] + [result?.event, lateReply].compactMap { $0 }))
            }
        }
        return findings
    }
}

/// A sign-out's revocation that could not reach the server is retried: once the app runs again with the
/// network back (a launch that reaches the server, or an `online` signal), it tries again to revoke the ended
/// session's refresh token, unless the server has revoked that session meanwhile.
struct OfflineRevocationRetried: Oracle {
    let id = "offline-revocation-retried"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-REVOCATION-RETRY"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        let revocations = index.exchanges.filter { $0.endpoint == .revoke }
        // The last attempt to revoke each token: an earlier failed one that was tried again is not in question.
        var last: [String: TraceIndex.Exchange] = [:]
        for revocation in revocations { if let token = revocation.presentedRevokedToken { last[token] = revocation } }
        for (token, failed) in last.sorted(by: { $0.value.event < $1.value.event }) where Self.unreachable(failed) {
            guard !context.world.auth.isFamilyRevoked(of: token), let chance = opportunity(after: failed, context) else { continue }
            findings.append(context.finding(
                requirements, id,
                "the revocation of \(context.handles(in: token)) could not reach the server (\(Self.describe(failed))); the app then \(chance.what) and never tried it again",
                [failed.event, chance.event]))
        }
        return findings
    }

    /// Whether the world answered the revocation with no response a server sent after revoking: offline, a
    /// timeout or a 5xx (a lost response did reach the server, and the family is revoked).
    static func unreachable(_ exchange: TraceIndex.Exchange) -> Bool {
        switch exchange.reply {
        case .failure?: true
        case .response(let response)?: response.status >= 500
        default: false
        }
    }

    static func describe(_ exchange: TraceIndex.Exchange) -> String {
        switch exchange.reply {
        case .failure(let info)?: info.code
        case .response(let response)?: "HTTP \(response.status)"
        default: "no answer"
        }
    }

    /// The first later moment the app ran with the network back and the step ended with the process alive: an
    /// `online` command, or a launch whose process then got an HTTP response from the server. A moment at which
    /// secure storage (where the queue lives) answered a read as locked is no chance to retry.
    private func opportunity(after failed: TraceIndex.Exchange, _ context: OracleContext)
        -> (instance: Int, event: Int, what: String)?
    {
        let index = context.index
        for command in index.commands where command.event > failed.event && [.online, .launch].contains(command.value.kind) {
            let (instance, step) = (command.instance, command.step)
            guard !index.kills.contains(where: { $0.instance == instance && $0.step <= step }) else { continue }
            let locked = index.storageReads.contains {
                $0.instance == instance && $0.event > command.event && $0.step == step
                    && { if case .error? = $0.value.reply { true } else { false } }($0)
            }
            guard !locked else { continue }
            if command.value.kind == .online { return (instance, command.event, "came back online") }
            let reached = index.exchanges.contains {
                $0.instance == instance && $0.event > command.event && $0.step == step && $0.responseBody.map { $0.status < 500 } == true
            }
            if reached { return (instance, command.event, "launched and reached the server") }
        }
        return nil
    }
}

extension TraceIndex.Exchange {
    /// The token a revocation request asks to revoke, in either dialect.
    var presentedRevokedToken: String? {
        (try? RequestParameters.parse(request).get())?["token"] ?? request.body["token"]?.string
    }
}
