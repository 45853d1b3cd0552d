import ConformanceProtocol
import SpecModel

/// Every reported transition exists in the state machine, starts where the client was, and moves the
/// session generation as the machine says. Each process instance starts with the launch into the initial state.
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

    private func check(_ transition: TraceIndex.Transition, after previous: TransitionEvent,
                       _ context: OracleContext) -> [Finding] {
        let message = transition.message
        guard let name = message.transition, let spec = context.machine.transition(name) else {
            return [context.finding(["SESSION-STATE-MACHINE"], id,
                                    "unknown transition '\(message.transition ?? "null")' from '\(message.from ?? "null")' to '\(message.to)'",
                                    [transition.event])]
        }
        var findings: [Finding] = []
        if message.from != spec.from.value || message.to != spec.to.value {
            findings.append(context.finding(
                ["SESSION-STATE-MACHINE"], id,
                "transition '\(name)' goes from '\(spec.from.value)' to '\(spec.to.value)', the client reported '\(message.from ?? "null")' to '\(message.to)'",
                [transition.event]))
        }
        if previous.to != spec.from.value {
            findings.append(context.finding(
                ["SESSION-STATE-MACHINE"], id,
                "transition '\(name)' starts in '\(spec.from.value)' but the client was in '\(previous.to)'",
                [transition.event]))
        }
        switch spec.generation {
        case .increment where message.generation <= previous.generation:
            let requirement = name == "sign-in-succeeded" ? "SIGNIN-NEW-GENERATION" : "EPOCH-INCREMENT"
            findings.append(context.finding(
                [requirement], id,
                "transition '\(name)' must increment the session generation; it went from \(previous.generation) to \(message.generation)",
                [transition.event]))
        case .keep where message.generation != previous.generation:
            findings.append(context.finding(
                ["SESSION-STATE-MACHINE"], id,
                "transition '\(name)' keeps the session generation; it went from \(previous.generation) to \(message.generation)",
                [transition.event]))
        default:
            break
        }
        return findings
    }
}
