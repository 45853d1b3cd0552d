import ConformanceProtocol
import SimulatedWorld

// Oracles that hold for a correct client under any ordering of replies, any faults and any kills: they read
// the whole trace and never a case's step positions, so generated cases (which have no `expect`) are judged
// by them as hand-written ones are.

/// The session a session end ended: the tokens of the family (one sign-in's tokens) of the last token the
/// ending process sent or received before the end, as far as they were issued by then. A token of that family
/// delivered after the end is a late result: the stale-refresh oracle's to judge.
func endedTokens(_ end: TraceIndex.Transition, _ context: OracleContext) -> (family: Int, tokens: Set<String>)? {
    var family: Int?
    var seen: [String] = []
    for exchange in context.index.exchanges where exchange.event < end.event {
        let delivered = (exchange.replyEvent ?? .max) < end.event
        let received = delivered ? [exchange.issuedAccessToken, exchange.issuedRefreshToken] : []
        let sent = [exchange.request.bearerToken, exchange.presentedRefreshToken]
        seen += (sent + received).compactMap { $0 }
        guard exchange.instance == end.instance else { continue }
        for token in ([exchange.request.bearerToken, exchange.endpoint == .revoke ? nil : exchange.presentedRefreshToken]
            + (delivered ? [exchange.issuedAccessToken] : [])).compactMap({ $0 }) {
            if let found = context.world.vault.token(token)?.family { family = found }
        }
    }
    guard let family else { return nil }
    return (family, Set(seen.filter { context.world.vault.token($0)?.family == family }))
}

/// Durability across a kill: a session the client announced as ended (sign-out, switch, rejection) never comes
/// back in a later process. After a kill the restored session is the one before or after the interrupted
/// operation; once the end was told, it is the one after.
struct EndedSessionNeverResurrected: Oracle {
    let id = "ended-session-never-resurrected"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR", "EPOCH-DISCARD-STALE-RESPONSES", "REFRESH-REJECTION-CANCELS-PENDING"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        guard index.launches.count > 1 else { return [] }
        var findings: [Finding] = []
        var reported: Set<Int> = []
        for end in index.transitions where sessionEndingTransitions.contains(end.message.transition ?? "") {
            guard let (family, tokens) = endedTokens(end, context), !reported.contains(family),
                  !Self.storageRefusedEveryChange(after: end, context) else { continue }
            let revival = index.exchanges.first { exchange in
                guard exchange.instance > end.instance, exchange.endpoint != .revoke else { return false }
                return [exchange.request.bearerToken, exchange.presentedRefreshToken].contains { $0.map(tokens.contains) == true }
            }
            guard let revival else { continue }
            reported.insert(family)
            let token = revival.request.bearerToken ?? revival.presentedRefreshToken ?? ""
            findings.append(context.finding(
                [NoRequestWithEndedSessionToken.requirement(endedBy: end.message.transition)], id,
                "the session that ended at '\(end.message.transition!)' in process \(end.instance) came back in process \(revival.instance): it sent \(context.handles(in: token))",
                [end.event, revival.event]))
        }
        return findings
    }
}

extension EndedSessionNeverResurrected {
    /// Whether the device refused every storage change (secure or preferences) the ending process sent from the
    /// command that ended the session until it died: refused by a `storageFault`, or discarded by the kill. No client
    /// can make an end last on such a device.
    static func storageRefusedEveryChange(after end: TraceIndex.Transition, _ context: OracleContext) -> Bool {
        guard context.index.kills.contains(where: { $0.instance == end.instance }) else { return false }
        // From the command that ended the session (or the transition before the end, if later).
        let since = max(context.index.transitions.last { $0.instance == end.instance && $0.event < end.event }?.event ?? 0,
                        context.index.commands.last { $0.instance == end.instance && $0.event < end.event }?.event ?? 0)
        let changes = context.index.storageChanges.filter { $0.instance == end.instance && $0.event > since }
        return !changes.isEmpty && changes.allSatisfy { $0.outcome == .refused || $0.outcome == .discarded }
    }
}

/// Liveness: every command gets exactly one result, unless its process died first or the world left something
/// the client asked for unanswered (a held or never-answered request, a sleep whose time has not come). A `launch`
/// may also stay outstanding while secure storage is sealed: after a reboot, until the first unlock
/// (docs/adapter-protocol.md, "Launch and its result").
struct EveryCommandAnsweredOnce: Oracle {
    let id = "every-command-answered-once"
    let invariants: [String] = []
    let requirements = ["SESSION-STATE-MACHINE", "REFRESH-SINGLE-FLIGHT", "REFRESH-REJECTION-CANCELS-PENDING", "SIGNOUT-BLOCK-AND-CLEAR"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var results: [String: [Int]] = [:]
        for result in index.results { results["\(result.instance)/\(result.value.id)", default: []].append(result.event) }
        let waiting = Self.instancesLeftWaiting(context)
        let sealedRestores = Self.restoresLeftSealed(context, results: results)
        var findings: [Finding] = []
        for command in index.commands {
            let answers = results["\(command.instance)/\(command.value.id)"] ?? []
            if answers.count > 1 {
                findings.append(context.finding(
                    ["SESSION-STATE-MACHINE"], id, "command \(command.value.id) (\(command.value.kind.rawValue)) got \(answers.count) results",
                    [command.event] + answers))
                continue
            }
            guard answers.isEmpty, !waiting.contains(command.instance),
                  !index.kills.contains(where: { $0.instance == command.instance }),
                  !(sealedRestores[command.instance].map { $0 <= command.event } == true) else { continue }
            findings.append(context.finding(
                [requirement(waitingSince: command.event, instance: command.instance, context)], id,
                "command \(command.value.id) (\(command.value.kind.rawValue)) never got a result, though the world answered everything the client asked",
                [command.event]))
        }
        return findings
    }

    /// What a command left without an answer was most likely waiting for, when the world had answered all.
    private func requirement(waitingSince event: Int, instance: Int, _ context: OracleContext) -> String {
        if let end = context.index.transitions.first(where: {
            $0.instance == instance && $0.event > event && sessionEndingTransitions.contains($0.message.transition ?? "")
        }) {
            return ["refresh-rejected", "restore-failed"].contains(end.message.transition ?? "")
                ? "REFRESH-REJECTION-CANCELS-PENDING" : "SIGNOUT-BLOCK-AND-CLEAR"
        }
        if context.index.exchanges.contains(where: { $0.instance == instance && $0.isRefresh && ($0.replyEvent ?? 0) > event }) {
            return "REFRESH-SINGLE-FLIGHT"
        }
        return "SESSION-STATE-MACHINE"
    }

    /// Per process, the event of its `launch` left outstanding while secure storage stayed sealed (sent after the
    /// last reboot, with no unlock to the end): that restore may wait for the keychain, and so may every command
    /// of the process sent after it, which waits for the restore (000: a request made while `restoring` waits for
    /// the session it restores; the design sets no bound on a restore blocked by a locked device).
    static func restoresLeftSealed(_ context: OracleContext, results: [String: [Int]]) -> [Int: Int] {
        guard let sealed = sealedSince(context) else { return [:] }
        var launches: [Int: Int] = [:]
        for command in context.index.commands where command.value.kind == .launch && command.event > sealed
            && (results["\(command.instance)/\(command.value.id)"] ?? []).isEmpty && launches[command.instance] == nil {
            launches[command.instance] = command.event
        }
        return launches
    }

    /// The event of the reboot after which the device was never unlocked, when the case ended with secure storage
    /// still sealed; nil when it ended readable.
    static func sealedSince(_ context: OracleContext) -> Int? {
        var sealed: Int?
        for event in context.trace.events {
            guard case .stepStarted(_, let kind) = event.kind else { continue }
            if kind == "reboot" { sealed = event.number } else if kind == "unlock" { sealed = nil }
        }
        return sealed
    }

    /// Instances in which an HTTP exchange or a sleep was still unanswered, and not abandoned by the client, when the
    /// trace (or the process) ended.
    static func instancesLeftWaiting(_ context: OracleContext) -> Set<Int> {
        var asked: [String: Int] = [:]
        for event in context.trace.events {
            switch event.kind {
            case .received(.http(let id, _, _)), .received(.sleep(let id, _)):
                asked["\(event.instance)/\(id)"] = event.instance
            case .sent(.reply(let id, _)), .effectAbandoned(let id):
                asked["\(event.instance)/\(id)"] = nil
            default:
                break
            }
        }
        return Set(asked.values)
    }
}

/// Nothing of an ended session's account survives the end in preferences (its cache, its identity) once the
/// last process has settled, unless the account signed in again since. An end told by a process killed before
/// it cleared everything is finished by a later launch (the reference's session-end marker). An account for
/// which the world refused a preferences change after the end, of a key that still holds the account's data or
/// a key or value that names the account (`storageFault: preferencesWriteFailure`), is excused: the client could
/// not finish the clear, and what it keeps for a later one (the rest of the cache, its index, a note for the next
/// launch) is partitioned by account (CACHE-PARTITION-BY-ACCOUNT).
struct EndedAccountLeavesNoPreferences: Oracle {
    let id = "ended-account-leaves-no-preferences"
    let invariants: [String] = []
    let requirements = ["SIGNOUT-BLOCK-AND-CLEAR", "CACHE-CLEAR-ON-SWITCH", "REFRESH-REJECTION-ONE-TRANSITION"]

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        // Storage whose last change the world refused (locked, `storageFault`) kept the client from finishing;
        // the note it keeps for the next launch is the durability oracle's to judge.
        guard let lastInstance = index.launches.last?.value,
              !index.kills.contains(where: { $0.instance == lastInstance }),
              !EndedSessionCredentialsCleared.lastSecureChangeRefused(context, instance: lastInstance) else { return [] }
        let transitions = index.transitions.filter { $0.instance == lastInstance }
        let current = transitions.last.flatMap { ["authenticated", "refreshing"].contains($0.message.to) ? accountOf(before: .max, transitions) : nil }
        var findings: [Finding] = []
        var judged: Set<String> = []
        // Every end, in whichever process it was told: a process killed before it cleared what the end left is
        // followed by launches that must finish the clear, as the last one settled, once it could read secure
        // storage (a device locked since boot keeps an interrupted end from being finished).
        let lastCouldRead = index.storageReads.contains {
            if case .value? = $0.value.reply { $0.instance == lastInstance } else { false }
        }
        for end in index.transitions where sessionEndingTransitions.contains(end.message.transition ?? "")
            && (end.instance == lastInstance || lastCouldRead) {
            let own = index.transitions.filter { $0.instance == end.instance }
            guard let account = accountOf(before: end.event, own), account != current,
                  !judged.contains(account), let world = WorldAccount.withID(account),
                  !index.transitions.contains(where: { $0.event > end.event && $0.message.account == account }) else { continue }
            judged.insert(account)
            let kept = keptPreferences(of: world, context)
            guard !kept.isEmpty,
                  !Self.changeRefused(of: Set(kept), naming: [world.id, world.email], after: end.event, context)
            else { continue }
            let requirement = switch end.message.transition ?? "" {
            case "account-switch", "switch-during-refresh": "CACHE-CLEAR-ON-SWITCH"
            case "refresh-rejected", "restore-failed": "REFRESH-REJECTION-ONE-TRANSITION"
            default: "SIGNOUT-BLOCK-AND-CLEAR"
            }
            findings.append(context.finding(
                [requirement], id,
                "\(world.name)'s session ended at '\(end.message.transition!)', yet preferences still hold \(kept.prefix(3).map { "'\($0)'" }.joined(separator: ", "))",
                [end.event]))
        }
        // A session no process told ended, yet gone: a process killed inside the sign-out or switch that ended it,
        // before telling it, then a launch that found (or made) no session. With no credential of the account left
        // on the device, nothing else of it may stay.
        guard lastCouldRead else { return findings }
        let held = Set(context.world.storage.secure.values.flatMap { context.world.vault.contained(in: $0.value).map(\.account) })
        var signedIn: [String] = []
        for transition in index.transitions { if let account = transition.message.account, !signedIn.contains(account) { signedIn.append(account) } }
        for account in signedIn where account != current && !judged.contains(account) && !held.contains(account) {
            guard let world = WorldAccount.withID(account),
                  let last = index.transitions.last(where: { $0.message.account == account }) else { continue }
            let kept = keptPreferences(of: world, context)
            guard !kept.isEmpty,
                  !Self.changeRefused(of: Set(kept), naming: [world.id, world.email], after: last.event, context)
            else { continue }
            // Only the end the user asked for is judged here; a session lost another way is other oracles' to judge.
            guard let ending = index.commands.last(where: {
                $0.instance == last.instance && $0.event > last.event && [.signOut, .switchAccount].contains($0.value.kind)
            }) else { continue }
            findings.append(context.finding(
                [ending.value.kind == .switchAccount ? "CACHE-CLEAR-ON-SWITCH" : "SIGNOUT-BLOCK-AND-CLEAR"], id,
                "\(world.name)'s session is gone after the \(ending.value.kind == .switchAccount ? "switch" : "sign-out") its process died in (no credential of it is left on the device), yet preferences still hold \(kept.prefix(3).map { "'\($0)'" }.joined(separator: ", "))",
                [ending.event]))
        }
        return findings
    }

    private func keptPreferences(of world: WorldAccount, _ context: OracleContext) -> [String] {
        context.world.storage.preferences.keys.sorted().filter { key in
            let value = context.world.storage.preferences[key] ?? ""
            return [world.id, world.email].contains { key.contains($0) || value.contains($0) }
        }
    }

    /// Whether the world answered with an error a preferences change (`set` or `delete`) sent after `event`, by
    /// the process that ended the session or a later one: of one of `keys` (what preferences still hold of the
    /// account), or whose key or value contains one of `names`. A note refused by a process that then died is lost
    /// with it, and nothing tells the next launch to finish the clear.
    static func changeRefused(of keys: Set<String>, naming names: [String], after event: Int,
                              _ context: OracleContext) -> Bool {
        context.index.storageChanges.contains { change in
            !change.secure && change.event > event && change.outcome == .refused
                && (keys.contains(change.key) || names.contains { change.key.contains($0) || change.value.contains($0) })
        }
    }

    /// The account of the last session established before `event`, by its transitions.
    private func accountOf(before event: Int, _ transitions: [TraceIndex.Transition]) -> String? {
        transitions.last { $0.event < event && $0.message.account != nil }?.message.account
    }
}

/// Backoff: after a refresh failed for a retryable reason (timeout, 5xx, offline, lost, or the client's own timeout:
/// it abandoned the refresh), the same refresh token
/// is not sent again at the same virtual time unless something happened meanwhile (a command, a signal such as
/// online or foreground), during an outage at most `attemptsPerMinute` attempts of it fall in any minute, and the
/// waits between its first attempts grow.
struct RetryableRefreshBacksOff: Oracle {
    let id = "retryable-refresh-backs-off"
    let invariants: [String] = []
    let requirements = ["REFRESH-RETRYABLE-BACKOFF"]
    /// A backoff doubling from half a second fits 8 attempts in a minute; a fixed retry interval under 6 s does not fit.
    static let attemptsPerMinute = 10

    func check(_ context: OracleContext) -> [Finding] {
        let index = context.index
        var findings: [Finding] = []
        let time = { (event: Int) in context.trace.events[event - 1].time }
        var attempts: [String: [TraceIndex.Exchange]] = [:]
        for refresh in index.exchanges where refresh.isRefresh {
            guard let token = refresh.presentedRefreshToken else { continue }
            attempts["\(refresh.instance)/\(token)", default: []].append(refresh)
        }
        for key in attempts.keys.sorted() {
            let sends = attempts[key]!
            for (failed, next) in zip(sends, sends.dropFirst()) {
                guard Self.retryable(failed), let replied = failed.endedEvent, replied < next.event,
                      time(next.event) <= time(replied),
                      !index.commandSent(in: next.instance, between: replied, and: next.event)
                else { continue }
                findings.append(context.finding(
                    requirements, id, "a refresh that failed for a retryable reason was sent again at once, without backing off",
                    [failed.event, replied, next.event]))
                break
            }
            // An outage: retryable failures in a row; no signal or command restarts the count.
            var window: [TraceIndex.Exchange] = []
            for send in sends {
                window.append(send)
                window.removeAll { time(send.event) - time($0.event) >= 60 }
                let unprompted = zip(window, window.dropFirst()).allSatisfy { earlier, later in
                    Self.retryable(earlier) && !index.commandSent(in: later.instance, between: earlier.event, and: later.event)
                }
                guard window.count > Self.attemptsPerMinute, unprompted else { continue }
                findings.append(context.finding(
                    requirements, id,
                    "\(window.count) attempts of one refresh within a minute of an outage; backoff allows at most \(Self.attemptsPerMinute)",
                    window.map(\.event)))
                break
            }
            if let flat = flatStart(sends, index, time) {
                let gaps = Self.waits(flat, time)
                findings.append(context.finding(
                    requirements, id,
                    "the waits between the first \(flat.count) attempts of one refresh in an outage did not grow (\(gaps.map { "\(Self.seconds($0)) s" }.joined(separator: ", "))): a backoff lengthens them",
                    flat.map(\.event)))
            }
        }
        return findings
    }

    /// The start of an outage (its first `judgedAttempts` sends at most, each after a retryable failure of the one
    /// before, with no command in between) when it has at least `growthAttempts` sends and its waits did not grow:
    /// every wait is within `flatSpread` times every other. Only the start of an outage is judged: a capped
    /// backoff is flat once it reaches its cap.
    /// Why a spread and not a comparison of early and late waits: a correct backoff with random jitter (AWS's full
    /// or decorrelated jitter, Google's ExponentialBackOff with its 1.5 multiplier and ±50%) draws each wait from a
    /// range that grows, and a single draw may land low; over four waits a late one came out under 1.5 times an
    /// early one in up to 9% of such outages. Waits within 20% of each other come from a client retrying at one
    /// interval (give or take a small jitter) in all but about one outage in 600 of decorrelated jitter, the
    /// noisiest of them, and fewer as the outage has more attempts; a wider jitter around one interval is left to
    /// the attempts-per-minute bound.
    /// An outage starts at the first send, or at one after a send the server accepted (a 2xx). A send answered
    /// with another error the client then retried (a 401 it read as retryable) does not start one: the client
    /// may keep its backoff across it, at its cap already. A command during an outage ends its judging until the
    /// next outage: the design lets the client keep its backoff across a user's request or restart it, so the
    /// sends after it may be at the cap already.
    private func flatStart(_ sends: [TraceIndex.Exchange], _ index: TraceIndex, _ time: (Int) -> Double) -> [TraceIndex.Exchange]? {
        var starts: [[TraceIndex.Exchange]] = []
        var run: [TraceIndex.Exchange]? = Array(sends.prefix(1))   // nil: inside an outage a command interrupted
        for (position, send) in sends.enumerated() where position > 0 {
            let previous = sends[position - 1]
            if Self.accepted(previous) {
                if let attempts = run { starts.append(attempts) }
                run = []
            } else if index.commandSent(in: send.instance, between: previous.event, and: send.event) {
                if let attempts = run { starts.append(attempts) }
                run = nil
            }
            if let attempts = run, attempts.count < Self.judgedAttempts { run = attempts + [send] }
        }
        if let attempts = run { starts.append(attempts) }
        return starts.first { attempts in
            let gaps = Self.waits(attempts, time)
            guard attempts.count >= Self.growthAttempts, let shortest = gaps.min(), let longest = gaps.max() else { return false }
            return shortest > 0 && longest < Self.flatSpread * shortest
        }
    }

    /// The wait before each attempt after the first: from the end of the one before (its reply, or the client's
    /// abandon on its own deadline) to the next send.
    private static func waits(_ attempts: [TraceIndex.Exchange], _ time: (Int) -> Double) -> [Double] {
        zip(attempts, attempts.dropFirst()).map { time($1.event) - time($0.endedEvent ?? $0.event) }
    }

    /// At least five attempts (four waits) are judged, and at most eight: the more waits, the surer the judgement.
    static let growthAttempts = 5
    static let judgedAttempts = 8
    static let flatSpread = 1.2

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 100).rounded() / 100)
    }

    private static func accepted(_ exchange: TraceIndex.Exchange) -> Bool {
        !retryable(exchange) && (200..<300).contains(exchange.status ?? 0)
    }

    static func retryable(_ exchange: TraceIndex.Exchange) -> Bool {
        if case .failure? = exchange.reply { return true }
        if exchange.abandonEvent != nil { return true }
        return (exchange.status ?? 0) >= 500
    }
}
