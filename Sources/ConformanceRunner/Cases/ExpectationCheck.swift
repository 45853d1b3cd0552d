import ConformanceProtocol
import SpecModel
import SimulatedWorld

/// Evaluates an `expect` or `require` step against its window: what happened since the previous check group.
struct ExpectationCheck {
    let expectation: Expectation
    let driver: ClientDriver
    /// Trace events after this number are in the step's window.
    let since: Int
    let stepIndex: Int

    /// An `expect` step's failures, each charged to the requirements the step verifies (`for`) and no other.
    func findings() -> [Finding] {
        problems().map { message, evidence in
            Finding(requirements: expectation.verifies.map(\.value), check: "expect", message: message,
                    evidence: evidence, step: stepIndex)
        }
    }

    /// What does not hold, in words (token values redacted), each with the trace events that show it.
    func problems() -> [(message: String, evidence: [Int])] {
        let index = TraceIndex(driver.trace)
        var problems: [(String, [Int])] = []
        let recent = { (event: Int) in event > since }

        if let state = expectation.state {
            let current = index.transitions.last { $0.instance == driver.instance }
            if current?.message.to != state.value {
                problems.append(("expected state '\(state.value)', the client is in '\(current?.message.to ?? "no state")'",
                                 current.map { [$0.event] } ?? []))
            }
        }
        if let results = expectation.results {
            let window = index.results.filter { recent($0.event) }
            let ok = window.filter { $0.value.succeeded }
            let failed = window.filter { !$0.value.succeeded }
            if let expected = results.ok, ok.count != expected {
                problems.append(("expected \(expected) successful results, got \(ok.count)", ok.map(\.event)))
            }
            if let expected = results.failed, failed.count != expected {
                problems.append(("expected \(expected) failed results, got \(failed.count)", failed.map(\.event)))
            }
            for (code, expected) in results.codes.sorted(by: { $0.key < $1.key }) {
                let matching = failed.filter { $0.value.error?.code == code }
                if matching.count != expected {
                    let codes = failed.compactMap { $0.value.error?.code }.joined(separator: ", ")
                    problems.append(("expected \(expected) results with error '\(code)', got \(matching.count) (errors: \(codes.isEmpty ? "none" : codes))",
                                     failed.map(\.event)))
                }
            }
        }
        for request in expectation.requests {
            let matching = index.exchanges.filter { recent($0.event) && driver.world.matches(pattern: request.path, $0.request) }
            if let count = request.count, matching.count != count {
                problems.append(("expected \(count) requests to \(request.path), got \(matching.count)", matching.map(\.event)))
            }
            if let atLeast = request.atLeast, matching.count < atLeast {
                problems.append(("expected at least \(atLeast) requests to \(request.path), got \(matching.count)",
                                 matching.map(\.event)))
            }
            if let atMost = request.atMost, matching.count > atMost {
                problems.append(("expected at most \(atMost) requests to \(request.path), got \(matching.count)",
                                 matching.map(\.event)))
            }
        }
        if let held = expectation.held, driver.heldCount != held {
            problems.append(("expected \(held) held responses, the world holds \(driver.heldCount)", []))
        }
        if let prompts = expectation.prompts {
            let shown = index.ui.filter { recent($0.event) && $0.value.kind == .signInPrompt }
            if shown.count != prompts {
                problems.append(("expected \(prompts) sign-in prompts, got \(shown.count)", shown.map(\.event)))
            }
        }
        let contentShown = index.ui.filter { recent($0.event) && $0.value.kind == .content }
        let owners = contentShown.map { ($0.event, $0.value.contentID.flatMap(driver.world.contentOwner)) }
        for account in expectation.shown where !owners.contains(where: { $0.1 == account }) {
            problems.append(("expected \(account)'s content to be shown; it was not", contentShown.map(\.event)))
        }
        for account in expectation.notShown {
            let wrong = owners.filter { $0.1 == account }.map(\.0)
            if !wrong.isEmpty { problems.append(("\(account)'s content was shown", wrong)) }
        }
        if let transitions = expectation.transitions {
            // The launch into the initial state is not a transition of the machine; it is not listed.
            let happened = index.transitions.filter { recent($0.event) && $0.message.transition != nil }
            let names = happened.compactMap(\.message.transition)
            if names != transitions.map(\.value) {
                problems.append(("expected transitions [\(transitions.map(\.value).joined(separator: ", "))], got [\(names.joined(separator: ", "))]",
                                 happened.map(\.event)))
            }
        }
        if let stored = expectation.tokensStored {
            let live = driver.world.vault.contained(in: driver.world.storage.secureText)
            if stored, live.isEmpty {
                problems.append(("expected tokens in secure storage; it holds none", []))
            } else if !stored, !live.isEmpty {
                problems.append(("expected no tokens in secure storage; it holds \(live.map(\.handle).joined(separator: ", "))", []))
            }
        }
        if let account = expectation.revoked, let id = WorldAccount.named(account)?.id, !driver.world.auth.isRevoked(account: id) {
            problems.append(("expected the server to have revoked \(account)'s session; it has not", []))
        }
        return problems.map { (driver.world.vault.redact($0.0), $0.1) }
    }
}
