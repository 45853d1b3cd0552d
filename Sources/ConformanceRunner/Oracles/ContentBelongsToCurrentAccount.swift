import ConformanceProtocol
import SimulatedWorld

/// What a screen shows is the current account's, fetched in the current session: never another account's
/// data, never private data while restoring or signed out.
struct ContentBelongsToCurrentAccount: Oracle {
    let id = "content-belongs-to-current-account"
    let invariants: [String] = ["restoring-no-private-content", "authenticated-content-current-account", "authenticated-cache-keyed-by-account", "signed-out-no-private-content", "signing-in-no-previous-account-content"]
    let requirements = [
        "EPOCH-DISCARD-STALE-RESPONSES", "CACHE-PARTITION-BY-ACCOUNT", "CACHE-CLEAR-ON-SWITCH",
        "RESTORE-NO-PRIVATE-BEFORE-VALIDATION", "SIGNOUT-BLOCK-AND-CLEAR", "OFFLINE-POLICY-DECLARED", "EPOCH-DISCARD-STALE-REFRESH",
    ]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        var servedByContent: [String: TraceIndex.Exchange] = [:]
        for exchange in index.exchanges {
            if let contentID = exchange.responseBody?.body["contentId"]?.string { servedByContent[contentID] = exchange }
        }
        for shown in index.ui where shown.value.kind == .content {
            guard let contentID = shown.value.contentID, let owner = context.world.contentOwner(contentID) else {
                findings.append(context.finding(
                    ["CACHE-PARTITION-BY-ACCOUNT"], id,
                    "content was shown without the contentId of the response it came from; the runner cannot tell whose it is",
                    [shown.event]))
                continue
            }
            let state = index.state(before: shown.event, instance: shown.instance) ?? "none"
            let current = index.transitions.last {
                $0.instance == shown.instance && $0.event < shown.event && $0.message.account != nil
            }?.message.account.flatMap { WorldAccount.withID($0)?.name ?? $0 }
            // The last session end before it, and whether the content's response arrived after that end: a
            // late response of the ended session, not content the client kept.
            let served = servedByContent[contentID]
            let ended = index.sessionEnd(before: shown.event, instance: shown.instance)
            let late = served.flatMap(\.replyEvent).map { delivered in ended.map { delivered > $0.event } ?? false } ?? false
            switch state {
            case "restoring":
                // Only what a declared offline policy names, of the account last signed in, may show early.
                // The policy covers the session stored on the device: none once a session has ended since, unless
                // an earlier process's end was refused by the device in every change it made (the durability
                // oracle's excuse): then the stored session is still the last account's, whatever the client.
                let lastSession = index.transitions.last {
                    $0.event < shown.event && ["sign-in-succeeded", "restore-validated"].contains($0.message.transition ?? "")
                }
                let endedSince = index.transitions.contains {
                    $0.event > (lastSession?.event ?? 0) && $0.event < shown.event
                        && sessionEndingTransitions.contains($0.message.transition ?? "")
                        && !($0.instance < shown.instance && EndedSessionNeverResurrected.storageRefusedEveryChange(after: $0, context))
                }
                let lastAccount = endedSince ? nil
                    : lastSession?.message.account.flatMap { WorldAccount.withID($0)?.name ?? $0 }
                let declared = context.capabilities.contains("offline-browsing")
                let allowed = declared && context.offlineResources.contains(shown.value.resource ?? "") && owner == lastAccount
                if !allowed {
                    // Showing what the policy does not allow breaks the restore rule, not the declaration. Showing
                    // content an earlier process got (a cache) with no policy declared is offline browsing nobody
                    // declared: the declaration's too.
                    let cached = served.map { $0.instance < shown.instance } ?? true
                    let undeclared = !declared && cached
                    findings.append(context.finding(
                        undeclared ? ["RESTORE-NO-PRIVATE-BEFORE-VALIDATION", "OFFLINE-POLICY-DECLARED"] : ["RESTORE-NO-PRIVATE-BEFORE-VALIDATION"], id,
                        declared
                            ? "\(owner)'s '\(shown.value.resource ?? "?")' was shown while restoring; the declared offline policy allows only [\(context.offlineResources.joined(separator: ", "))] of the last account"
                            : "\(owner)'s private content was shown while restoring, before the session was validated"
                                + (undeclared ? " (from an earlier process: offline browsing with no offline policy declared)" : ""),
                        [shown.event]))
                }
            case "signedOut":
                // Anything on screen but a late response is what sign-out should have cleared.
                findings.append(context.finding(
                    late ? ["EPOCH-DISCARD-STALE-RESPONSES"] : ["SIGNOUT-BLOCK-AND-CLEAR"], id,
                    late ? "\(owner)'s response that arrived after the session ended was shown while signed out"
                        : "\(owner)'s private content was shown while signed out",
                    [shown.event]))
            case "signingIn":
                // A late response of the session that ended (the switch's) is the epoch check's to drop, as in the
                // other states; anything else shown while signing in is what the switch should have cleared.
                findings.append(context.finding(
                    late ? ["EPOCH-DISCARD-STALE-RESPONSES"] : ["CACHE-CLEAR-ON-SWITCH"], id,
                    late ? "\(owner)'s response that arrived after the session ended was shown while signing in"
                        : "\(owner)'s private content was shown while signing in",
                    late ? ([served?.replyEvent, ended?.event].compactMap { $0 } + [shown.event]).sorted() : [shown.event]))
            default:
                guard let current, owner != current else { continue }
                // Fetched with a token of a refresh result that arrived after its own session ended, and sent after
                // that: the session took up the stale result, which is where the fault lies.
                if let served, let adopted = Self.staleRefresh(issuing: served.request.bearerToken, index), served.event > adopted {
                    findings.append(context.finding(
                        ["EPOCH-DISCARD-STALE-REFRESH"], id,
                        "\(owner)'s content was shown in \(current)'s session, fetched with \(context.handles(in: served.request.bearerToken ?? "")) "
                            + "of a refresh result that arrived after its session ended",
                        [adopted, served.event, shown.event].sorted()))
                    continue
                }
                // A response to a request sent before this session began and answered after it is late too, even
                // when no end was reported in between (a sign-in over a session the client never ended).
                let started = index.transitions.last {
                    $0.instance == shown.instance && $0.event < shown.event
                        && ["sign-in-succeeded", "restore-validated"].contains($0.path?.transition.id ?? $0.message.transition ?? "")
                }?.event
                let spanned = served.flatMap { served in
                    started.flatMap { started in served.replyEvent.map { served.event < started && $0 > started } }
                } ?? false
                // Answered with that content to a command the user gave before this session began: a response of the
                // earlier session the client applied late, not content a shared cache handed to a command of this one.
                // (The result that follows the showing is the command's it answered.)
                let answered = index.results.first {
                    $0.instance == shown.instance && $0.event > shown.event && $0.value.content["contentId"]?.string == contentID
                }
                let askedBefore = started.flatMap { started in
                    answered.map { result in
                        index.commands.contains { $0.instance == shown.instance && $0.value.id == result.value.id && $0.event < started }
                    }
                } ?? false
                let stale = late || spanned || askedBefore
                // Sent in this session with the other account's token: nothing was cached; the session took up
                // credentials of a sign-in it replaced (a superseded login answered late and stored).
                if !stale, let served, let started, served.event > started {
                    findings.append(context.finding(
                        ["EPOCH-DISCARD-STALE-RESPONSES"], id,
                        "\(owner)'s content was shown in \(current)'s session, fetched in it with \(owner)'s "
                            + "\(context.handles(in: served.request.bearerToken ?? "")): the session took up another sign-in's credentials",
                        [served.event, shown.event]))
                    continue
                }
                findings.append(context.finding(
                    stale ? ["EPOCH-DISCARD-STALE-RESPONSES"] : ["CACHE-PARTITION-BY-ACCOUNT"], id,
                    stale ? "\(owner)'s late response was shown in \(current)'s session"
                        : "\(owner)'s cached content was shown in \(current)'s session",
                    ([served?.replyEvent, ended?.event].compactMap { $0 } + [shown.event]).sorted()))
            }
        }
        return findings
    }

    /// The reply event of the refresh that issued `token`, when that result was stale (stale-refresh-result-discarded).
    static func staleRefresh(issuing token: String?, _ index: TraceIndex) -> Int? {
        guard let token, let issuing = index.exchanges.first(where: { $0.isRefresh && $0.issuedAccessToken == token }),
              StaleRefreshResultDiscarded.sessionEnd(beforeResultOf: issuing, index) != nil else { return nil }
        return issuing.replyEvent
    }
}
