import ConformanceProtocol
import SimulatedWorld

/// What a probe's trace shows of the adapter's wiring: a client whose state, storage, HTTP or screen does not
/// reach the runner is charged by `run` for what its adapter left out.
struct TraceDiagnosis {
    let probe: String
    let outcome: CaseOutcome
    let index: TraceIndex
    let capabilities: [String]
    let world: WorldProfile

    var diagnoses: [Diagnosis] {
        var found = fromOracles()
        let signedIn = succeeded(.signIn)
        if let refused = failedSignIn() {
            let hint = WorldMismatch.hint(in: [outcome], profile: world).map { "; " + $0 } ?? ""
            found.append(Diagnosis(.signInFailed, probe: probe, seen: "the sign-in with a correct password was answered \(refused)\(hint)"))
        }
        if signedIn, index.transitions.isEmpty {
            found.append(Diagnosis(.noTransitions, probe: probe, seen: "the sign-in succeeded and the adapter reported no transition at all"))
        } else if signedIn, !index.transitions.contains(where: { $0.message.to == "authenticated" }) {
            let states = index.transitions.map(\.message.to)
            found.append(Diagnosis(.signInNotReported, probe: probe,
                                   seen: "the sign-in succeeded; the transitions reported went to \(states.joined(separator: ", "))"))
        }
        if signedIn, !index.storageChanges.contains(where: { $0.secure && $0.operation == .set }) {
            found.append(Diagnosis(.sessionNotInStorage, probe: probe, seen: "the sign-in succeeded and nothing was written to secure storage"))
        }
        if signedIn, index.exchanges.isEmpty {
            found.append(Diagnosis(.noHTTP, probe: probe, seen: "the sign-in succeeded and no HTTP request reached the world"))
        }
        let resources = index.exchanges.filter { $0.request.path.hasPrefix("/resources/") }
        if !resources.isEmpty, resources.allSatisfy({ $0.cause == nil }) {
            found.append(Diagnosis(.noCause, probe: probe,
                                   seen: "no request for a resource named the command it serves"))
        }
        if succeeded(.request), !index.ui.contains(where: { $0.value.kind == .content }) {
            found.append(Diagnosis(.noContentEvent, probe: probe, seen: "a request succeeded and no content was reported shown"))
        }
        if capabilities.contains("reset"), probe == "fresh-after-reset",
           let restored = index.transitions.first(where: { $0.message.to == "authenticated" }) {
            found.append(Diagnosis(.resetKeepsState, probe: probe,
                                   seen: "with nothing stored, the launch reported 'authenticated' (event #\(restored.event)): the session of an earlier probe survived the reset"))
        }
        if let wait = outcome.trace.realTimeWaits.first {
            found.append(Self.realTimeWait(wait, probe: probe))
        }
        if probe == "deadline", !resources.isEmpty, !index.exchanges.contains(where: { $0.abandonEvent != nil }) {
            found.append(Diagnosis(.noDeadline, probe: probe,
                                   seen: "the world held a request for 120 s of the virtual clock and the client did not give up on it"))
        }
        return found
    }

    static func realTimeWait(_ wait: RealTimeWait, probe: String) -> Diagnosis {
        Diagnosis(.realTimeWait, probe: probe,
                  seen: "the adapter sent nothing for \(wait.seconds) s of real time after event #\(wait.afterEvent) while the runner waited for it")
    }

    /// The oracles' findings that are about the adapter's output rather than the client's design.
    private func fromOracles() -> [Diagnosis] {
        outcome.findings.compactMap { finding in
            switch finding.check {
            case "oracle:every-command-answered-once":
                return Diagnosis(.commandUnanswered, probe: probe, seen: finding.message)
            case "oracle:no-token-in-client-output" where finding.requirements.contains("LOG-NO-TOKEN-VALUES"):
                return Diagnosis(.tokenInOutput, probe: probe, seen: finding.message)
            default:
                return nil
            }
        }
    }

    /// The error a sign-in (the probes' passwords are all correct) was answered with.
    private func failedSignIn() -> String? {
        for command in index.commands where command.value.kind == .signIn {
            guard let result = index.results.first(where: { $0.value.id == command.value.id }), let error = result.value.error else { continue }
            return "with the error '\(error.code)'" + (error.message.map { " (\($0.prefix(200)))" } ?? "")
        }
        return nil
    }

    private func succeeded(_ kind: CommandKind) -> Bool {
        index.commands.contains { command in
            command.value.kind == kind && index.results.contains { $0.value.id == command.value.id && $0.value.succeeded }
        }
    }
}
