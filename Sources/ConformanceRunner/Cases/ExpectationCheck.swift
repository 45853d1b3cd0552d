import ConformanceProtocol
import SpecModel
import SimulatedWorld

/// Evaluates an `expect` or `require` step against its window: what happened since the previous check group.
struct ExpectationCheck {
    let expectation: Expectation
    let driver: ClientDriver
    /// Reported transitions are judged by what they did (`TransitionResolution`).
    let machine: StateMachine
    /// Trace events after this number are in the step's window.
    let since: Int
    let stepIndex: Int

    /// An `expect` step's failures, each charged to the requirements the step verifies (`for`) and no other.
    func findings() -> [Finding] {
        problems().map { problem in
            Finding(requirements: expectation.verifies.map(\.value), check: "expect", message: problem.message,
                    evidence: problem.evidence, step: stepIndex, unmet: problem.unmet)
        }
    }

    /// One thing that does not hold: in words (token values redacted), with the trace events that show it, and
    /// as data, for a `require` step that stops the case.
    struct Problem {
        let message: String
        let evidence: [Int]
        let unmet: UnmetPrecondition
    }

    /// What does not hold, each with the trace events that show it.
    func problems() -> [Problem] {
        let index = TraceIndex(driver.trace, machine: machine)
        var problems: [(String, [Int], UnmetPrecondition)] = []
        let step = stepIndex + 1
        func other(_ subject: String, expected: String? = nil, observed: String? = nil) -> UnmetPrecondition {
            UnmetPrecondition(kind: .other, step: step, subject: subject, expected: expected, observed: observed)
        }
        let recent = { (event: Int) in event > since }

        if let state = expectation.state {
            let current = index.transitions.last { $0.instance == driver.instance }
            // A client that skipped an optional transition is still in its `from` state: it never showed that one.
            let skipped = machine.transitions.contains { $0.optional && $0.from.value == current?.message.to && $0.to.value == state.value }
            if current?.message.to != state.value && !skipped {
                problems.append(("expected state '\(state.value)', the client is in '\(current?.message.to ?? "no state")'",
                                 current.map { [$0.event] } ?? [],
                                 UnmetPrecondition(kind: .state, step: step, expected: state.value, observed: current?.message.to)))
            }
        }
        if let results = expectation.results {
            let window = index.results.filter { recent($0.event) }
            let ok = window.filter { $0.value.succeeded }
            let failed = window.filter { !$0.value.succeeded }
            if let expected = results.ok, ok.count != expected {
                problems.append(("expected \(Plural.count(expected, "successful result")), got \(ok.count)", ok.map(\.event),
                                 UnmetPrecondition(kind: .results, step: step, subject: "ok", expected: "\(expected)", observed: "\(ok.count)")))
            }
            if let expected = results.failed, failed.count != expected {
                problems.append(("expected \(Plural.count(expected, "failed result")), got \(failed.count)", failed.map(\.event),
                                 UnmetPrecondition(kind: .results, step: step, subject: "failed", expected: "\(expected)",
                                                   observed: "\(failed.count)")))
            }
            for (code, expected) in results.codes.sorted(by: { $0.key < $1.key }) {
                let matching = failed.filter { $0.value.error?.code == code }
                if matching.count != expected {
                    let codes = failed.compactMap { $0.value.error?.code }.joined(separator: ", ")
                    problems.append(("expected \(Plural.count(expected, "result")) with error '\(code)', got \(matching.count) (errors: \(codes.isEmpty ? "none" : codes))",
                                     failed.map(\.event),
                                     UnmetPrecondition(kind: .results, step: step, subject: code, expected: "\(expected)",
                                                       observed: "\(matching.count)")))
                }
            }
        }
        for request in expectation.requests {
            let matching = index.exchanges.filter { recent($0.event) && driver.world.matches(pattern: request.path, $0.request) }
            let unmet = { (expected: String) in
                UnmetPrecondition(kind: .requests, step: step, path: request.path,
                                  endpoint: UnmetPrecondition.endpoint(ofCasePath: request.path), expected: expected,
                                  observed: "\(matching.count)")
            }
            if let count = request.count, matching.count != count {
                problems.append(("expected \(Plural.count(count, "request")) to \(request.path), got \(matching.count)", matching.map(\.event),
                                 unmet("\(count)")))
            }
            if let atLeast = request.atLeast, matching.count < atLeast {
                problems.append(("expected at least \(Plural.count(atLeast, "request")) to \(request.path), got \(matching.count)",
                                 matching.map(\.event), unmet("at least \(atLeast)")))
            }
            if let atMost = request.atMost, matching.count > atMost {
                problems.append(("expected at most \(Plural.count(atMost, "request")) to \(request.path), got \(matching.count)",
                                 matching.map(\.event), unmet("at most \(atMost)")))
            }
        }
        if let held = expectation.held, driver.heldCount != held {
            problems.append(("expected \(Plural.count(held, "held response")), the world holds \(driver.heldCount)", [],
                             other("held", expected: "\(held)", observed: "\(driver.heldCount)")))
        }
        if let prompts = expectation.prompts {
            let shown = index.ui.filter { recent($0.event) && $0.value.kind == .signInPrompt }
            if shown.count != prompts {
                problems.append(("expected \(Plural.count(prompts, "sign-in prompt")), got \(shown.count)", shown.map(\.event),
                                 other("prompts", expected: "\(prompts)", observed: "\(shown.count)")))
            }
        }
        let contentShown = index.ui.filter { recent($0.event) && $0.value.kind == .content }
        let owners = contentShown.map { ($0.event, $0.value.contentID.flatMap(driver.world.contentOwner)) }
        for account in expectation.shown where !owners.contains(where: { $0.1 == account }) {
            problems.append(("expected \(account)'s content to be shown; it was not", contentShown.map(\.event), other("shown")))
        }
        for account in expectation.notShown {
            let wrong = owners.filter { $0.1 == account }.map(\.0)
            if !wrong.isEmpty { problems.append(("\(account)'s content was shown", wrong, other("notShown"))) }
        }
        if let transitions = expectation.transitions {
            // The launch into the initial state is not a transition of the machine; it is not listed.
            let happened = index.transitions.filter { recent($0.event) && ($0.path != nil || $0.reported != nil) }
            let current = index.transitions.last { $0.instance == driver.instance }?.message.to
            if !Self.took(transitions.map(\.value), happened, in: index, endingIn: current, machine) {
                let got = happened.map { transition in
                    let name = transition.message.transition ?? "null"
                    let named = transition.reported == name ? name : "\(name) (reported '\(transition.reported ?? "null")')"
                    // Named right, but not what the machine's transition does (its generation rule, its states).
                    return transition.path == nil && transition.reported != nil
                        ? "\(named) (to \(transition.message.to), generation \(transition.message.generation): not what the state machine's transition does)"
                        : named
                }
                problems.append(("expected transitions [\(transitions.map(\.value).joined(separator: ", "))], got [\(got.joined(separator: ", "))]",
                                 happened.map(\.event), other("transitions")))
            }
        }
        if let stored = expectation.tokensStored {
            let live = driver.world.vault.contained(in: driver.world.storage.secureText)
            if stored, live.isEmpty {
                problems.append(("expected tokens in secure storage; it holds none", [], other("tokensStored")))
            } else if !stored, !live.isEmpty {
                problems.append(("expected no tokens in secure storage; it holds \(live.map(\.handle).joined(separator: ", "))", [],
                                 other("tokensStored")))
            }
        }
        if let account = expectation.revoked, let id = WorldAccount.named(account)?.id, !driver.world.auth.isRevoked(account: id) {
            problems.append(("expected the server to have revoked \(account)'s session; it has not", [], other("revoked")))
        }
        return problems.map { Problem(message: driver.world.vault.redact($0.0), evidence: $0.1, unmet: $0.2) }
    }

    /// What one transition does, seen with the states of optional transitions hidden (`refreshing` shows as
    /// `authenticated`, `signingIn` as `signedOut`): a transition that then goes nowhere with the generation kept
    /// (refresh-started, refresh-succeeded, sign-in-failed...) shows nothing at all.
    struct Step: Equatable {
        let from: String
        let to: String
        let generation: GenerationEffect?
        /// The machine event; nil for a reported transition no machine transition explains.
        let event: String?

        func matches(_ expected: Step) -> Bool {
            from == expected.from && to == expected.to && generation == expected.generation && (event == nil || event == expected.event)
        }
    }

    /// Whether the client took the expected transitions, judged by what they did: the steps it took (each reported
    /// transition read as the machine's, `TransitionResolution`) are the expected ones once the optional
    /// transitions' states are hidden, and it is where the last expected one leads, or in the state an optional
    /// transition it never showed leaves from (in `authenticated` where `refreshing` was expected).
    static func took(_ expected: [String], _ taken: [TraceIndex.Transition], in index: TraceIndex, endingIn current: String?,
                     _ machine: StateMachine) -> Bool {
        func hidden(_ state: String) -> String {
            machine.transitions.first { $0.optional && $0.to.value == state }?.from.value ?? state
        }
        func step(from: String, to: String, _ generation: GenerationEffect?, _ event: String?) -> Step? {
            let step = Step(from: hidden(from), to: hidden(to), generation: generation, event: event)
            return step.from == step.to && generation == .keep ? nil : step
        }
        func steps(_ transition: Transition) -> Step? {
            step(from: transition.from.value, to: transition.to.value, transition.generation, transition.event)
        }
        let wanted = expected.compactMap { machine.transition($0).flatMap(steps) }
        let took: [Step] = taken.flatMap { transition -> [Step] in
            if let path = transition.path { return [path.skipped, path.transition].compactMap { $0.flatMap(steps) } }
            // No transition of the machine explains it: what it did, without a cause.
            guard let previous = index.transitions.last(where: { $0.instance == transition.instance && $0.event < transition.event }) else {
                return [Step(from: "", to: transition.message.to, generation: nil, event: nil)]
            }
            let rule = TransitionResolution.generation(from: previous.message.generation, to: transition.message.generation)
            return [step(from: previous.message.to, to: transition.message.to, rule, nil)].compactMap { $0 }
        }
        guard took.count == wanted.count, zip(took, wanted).allSatisfy({ $0.matches($1) }) else { return false }
        guard let last = expected.last, let end = machine.transition(last)?.to.value else { return true }
        return current == end || machine.transitions.contains { $0.optional && $0.from.value == current && $0.to.value == end }
    }
}
