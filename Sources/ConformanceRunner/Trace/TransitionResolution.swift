import ConformanceProtocol
import SpecModel

/// Reads each reported transition as what it did, not as what it is called: the state the client left (where
/// its previous transition took it), the state it reached, and what happened to the session generation. A
/// reported name only chooses among the machine's transitions that did exactly that; so does what caused it
/// (the user's pending command, the server's rejection), before the name.
///
/// - A transition reported by an alias is the transition that has it.
/// - A client may skip an optional transition (`optional: true`): authenticated to signedOut on a rejection,
///   with no `refreshing` reported, is `refresh-rejected` through a skipped `refresh-started`.
/// - When two transitions do the same (restoring to signedOut, incrementing: `restore-failed` and
///   `restore-sign-out`), the cause picks: with the user's sign-out pending it is the sign-out, whatever the
///   client called it.
/// - A name, known or not, whose behaviour fits no transition of the machine keeps the reported name and no
///   path: the oracle `transitions-follow-state-machine` says what is wrong with it.
struct TransitionResolution {
    let machine: StateMachine
    let commands: [TraceIndex.Located<AppCommand>]
    let results: [TraceIndex.Located<CommandResult>]
    let exchanges: [TraceIndex.Exchange]

    /// The machine events a user's command causes.
    private static let userEvents: [CommandKind: String] = [.signOut: "signOut", .switchAccount: "switchAccount", .signIn: "signIn"]
    /// The machine events a rejection by the server causes.
    private static let rejectionEvents: Set<String> = ["refreshRejected", "restoreRejected"]

    /// The transitions with each one's path through the machine and, where one was found, the machine's ID as
    /// its `message.transition`; `reported` keeps what the client said.
    func resolve(_ transitions: [TraceIndex.Transition]) -> [TraceIndex.Transition] {
        var previous: [Int: TraceIndex.Transition] = [:]
        return transitions.map { transition in
            defer { previous[transition.instance] = transition }
            let path = self.path(of: transition, after: previous[transition.instance])
            var message = transition.message
            if let path { message.transition = path.transition.id }
            return TraceIndex.Transition(event: transition.event, instance: transition.instance, step: transition.step,
                                         message: message, reported: transition.reported, path: path)
        }
    }

    /// What the client did, as a path of the machine; nil for the launch's entry into the initial state and for
    /// what no transition does.
    func path(of transition: TraceIndex.Transition, after previous: TraceIndex.Transition?) -> StateMachine.Path? {
        let named = transition.reported.flatMap(machine.transition(named:))
        guard let previous else {
            // Nothing to judge it against (the first report of a process): the name alone.
            return named.map { StateMachine.Path(skipped: nil, transition: $0) }
        }
        let fitting = Self.generation(from: previous.message.generation, to: transition.message.generation).map { rule in
            machine.paths(from: previous.message.to, to: transition.message.to).filter { $0.generation == rule }
        } ?? []
        let causes = causes(of: transition, after: previous.event)
        let caused = fitting.filter { causes.contains($0.transition.event) }
        let candidates = caused.isEmpty ? fitting : caused
        if let named, let path = candidates.first(where: { $0.transition.id == named.id }) { return path }
        let direct = candidates.filter { $0.skipped == nil }
        if direct.count == 1 { return direct[0] }
        if direct.isEmpty, candidates.count == 1 { return candidates[0] }
        return named.flatMap { named in fitting.first { $0.transition.id == named.id } }
    }

    /// The generation rule a change of generation follows: nil when it went back.
    static func generation(from before: Int, to after: Int) -> GenerationEffect? {
        after == before ? .keep : after > before ? .increment : nil
    }

    /// The machine events that explain a transition: a user's command it had not answered yet, else a rejection
    /// the server sent since the client's previous transition.
    private func causes(of transition: TraceIndex.Transition, after start: Int) -> Set<String> {
        let pending = commands.filter { command in
            command.instance == transition.instance && command.event < transition.event && Self.userEvents[command.value.kind] != nil
                && !results.contains { $0.instance == command.instance && $0.value.id == command.value.id && $0.event < transition.event }
        }
        if !pending.isEmpty { return Set(pending.compactMap { Self.userEvents[$0.value.kind] }) }
        let rejected = exchanges.contains { exchange in
            guard exchange.instance == transition.instance, let reply = exchange.replyEvent, reply > start,
                  reply < transition.event else { return false }
            return exchange.isRejection || (exchange.isRefresh && exchange.status == 401)
        }
        return rejected ? Self.rejectionEvents : []
    }
}
