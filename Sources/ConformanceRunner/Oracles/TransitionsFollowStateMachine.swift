import ConformanceProtocol
import SpecModel

/// Every reported transition does what a transition of the state machine does: from the state the client was in
/// to the state it reports reaching, moving the session generation by the machine's rule (through an optional
/// transition it may have skipped). Not its name: an alias, an old name or an unknown one is judged by what it
/// did. Each process instance starts with the launch into the initial state.
struct TransitionsFollowStateMachine: Oracle {
    let id = "transitions-follow-state-machine"
    let invariants: [String] = []
    let requirements = [
        "SESSION-STATE-MACHINE", "LOG-RECORD-TRANSITIONS", "RESTORE-EXPLICIT-STATE", "EPOCH-INCREMENT", "SIGNIN-NEW-GENERATION",
    ]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let machine = context.machine
        for launch in context.index.launches {
            let transitions = context.index.transitions.filter { $0.instance == launch.value }
            let sentLaunch = context.index.commands.contains { $0.instance == launch.value && $0.value.kind == .launch }
            guard let first = transitions.first else {
                if sentLaunch {
                    findings.append(context.finding(
                        ["LOG-RECORD-TRANSITIONS", "RESTORE-EXPLICIT-STATE"], id,
                        "the client reported no transition after launch; it must enter '\(machine.initial.value)' first",
                        [launch.event]))
                }
                continue
            }
            if first.message.transition != nil || first.message.to != machine.initial.value {
                findings.append(context.finding(
                    ["RESTORE-EXPLICIT-STATE"], id,
                    "the first transition after launch went to '\(first.message.to)'; a launch enters '\(machine.initial.value)'",
                    [first.event]))
            }
            var previous = first.message
            for transition in transitions.dropFirst() {
                findings += check(transition, after: previous, context)
                previous = transition.message
            }
        }
        return findings
    }

    /// Judged by what the transition did (`TransitionResolution`): one the machine has, from the state the client
    /// was in, with its generation rule, is right whatever its name. Only what no path of the machine does is charged.
    private func check(_ transition: TraceIndex.Transition, after previous: TransitionEvent,
                       _ context: OracleContext) -> [Finding] {
        guard transition.path == nil else { return [] }
        let message = transition.message
        let reported = transition.reported.map { "'\($0)'" } ?? "with no name"
        let paths = context.machine.paths(from: previous.to, to: message.to)
        guard !paths.isEmpty else {
            return [context.finding(["SESSION-STATE-MACHINE"], id,
                                    "the client went from '\(previous.to)' to '\(message.to)' (reported \(reported)); no transition of the state machine does",
                                    [transition.event])]
        }
        let rule = TransitionResolution.generation(from: previous.generation, to: message.generation)
        // The states fit and so does the generation, but neither the name nor the cause tells which transition it
        // was (an unknown name for refresh-succeeded or refresh-deferred): allowed behaviour, nothing to charge.
        guard !paths.contains(where: { $0.generation == rule }) else { return [] }
        let named = transition.reported.flatMap(context.machine.transition(named:))
        let path = paths.first { $0.transition.id == named?.id } ?? paths[0]
        let name = path.transition.id
        let what = "'\(name)' (\(previous.to) to \(message.to), reported \(reported))"
        switch path.generation {
        case .increment:
            return [context.finding(
                [name == "sign-in-succeeded" ? "SIGNIN-NEW-GENERATION" : "EPOCH-INCREMENT"], id,
                "transition \(what) must increment the session generation; it went from \(previous.generation) to \(message.generation)",
                [transition.event])]
        case .keep:
            return [context.finding(
                ["SESSION-STATE-MACHINE"], id,
                "transition \(what) keeps the session generation; it went from \(previous.generation) to \(message.generation)",
                [transition.event])]
        }
    }
}
