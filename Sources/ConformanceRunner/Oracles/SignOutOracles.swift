import ConformanceProtocol
import SimulatedWorld

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
