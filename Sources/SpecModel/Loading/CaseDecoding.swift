import SpecYAML

extension SpecDecoder {
    mutating func caseFile(_ top: inout MappingReader, file: String) -> CaseFile {
        let caseNodes = top.required("cases").flatMap { list($0, "cases") }
        let cases = track(.acceptanceCase, nodes: caseNodes,
                          decoded: caseNodes?.compactMap { acceptanceCase($0, file: file) } ?? [])
        return CaseFile(file: file, cases: cases)
    }

    private mutating func acceptanceCase(_ node: YAMLNode, file: String) -> AcceptanceCase? {
        let keys = ["id", "title", "requirements", "transitions", "capabilities", "triggers", "timeouts", "steps"]
        guard var map = mapping(node, "a case", allowed: keys) else { return nil }
        let id = map.required("id").flatMap { identifier($0, "case id", pattern: .lowerKebab) }
        if let id { map.what = "case '\(id.value)'" }
        let what = map.what
        let title = map.required("title").flatMap { string($0, "the 'title' of \(what)") }
        let requirements = map.required("requirements").map { stringList($0, "the 'requirements' of \(what)") } ?? []
        let transitions = map.optional("transitions").map { stringList($0, "the 'transitions' of \(what)") } ?? []
        let capabilities = map.optional("capabilities").map { stringList($0, "the 'capabilities' of \(what)") } ?? []
        let triggers = map.optional("triggers").flatMap { list($0, "the 'triggers' of \(what)") }?
            .compactMap { choice($0, "trigger", as: RefreshTrigger.self) } ?? []
        let timeouts = map.optional("timeouts").flatMap { flag($0, "the 'timeouts' of \(what)") } ?? false
        let steps = map.required("steps").flatMap { list($0, "the 'steps' of \(what)") }?
            .compactMap { step($0) } ?? []
        checkTriggers(triggers, steps: steps, at: map.node.location, what: what)
        if !timeouts { checkHeldClock(steps, triggers: triggers.map(\.value), what: what) }
        finish(map)
        guard let id, let title else { return nil }
        return AcceptanceCase(
            id: id.value, location: id.location, file: file, title: title.value, requirements: requirements,
            transitions: transitions, capabilities: capabilities, triggers: triggers, steps: steps, timeouts: timeouts)
    }

    /// A case with `refreshDue` lists the triggers it is played under, and only such a case does; `under`
    /// names triggers the case lists.
    private mutating func checkTriggers(_ triggers: [Located<RefreshTrigger>], steps: [CaseStep], at location: SourceLocation,
                                        what: String) {
        var seen: Set<RefreshTrigger> = []
        for trigger in triggers where !seen.insert(trigger.value).inserted {
            error("trigger '\(trigger.value.rawValue)' is listed twice in \(what)", at: trigger.location)
        }
        let due = steps.first(where: \.isRefreshDue)
        if let due, triggers.isEmpty {
            error("\(what) has a 'refreshDue' step but no 'triggers': list the triggers it is played under ("
                  + RefreshTrigger.allCases.map(\.rawValue).joined(separator: ", ") + ")", at: due.location)
        }
        if due == nil, let first = triggers.first {
            error("\(what) lists 'triggers' but has no 'refreshDue' step for them to stand for", at: first.location)
        }
        for step in steps {
            for trigger in step.action.expectation?.under ?? [] where !seen.contains(trigger.value) {
                error("'under' names trigger '\(trigger.value.rawValue)', which \(what) does not list in 'triggers'",
                      at: trigger.location)
            }
        }
    }

    /// No request may be held while the clock moves `HeldClockRule.limit` seconds or more, under any trigger,
    /// unless the case says it is about timeouts.
    private mutating func checkHeldClock(_ steps: [CaseStep], triggers: [RefreshTrigger], what: String) {
        var reported: Set<Int> = []
        for trigger in triggers.isEmpty ? [nil] : triggers.map(Optional.some) {
            let variant = trigger.map { trigger in steps.filter { $0.applies(under: trigger) } } ?? steps
            for violation in HeldClockRule.analyze(variant, trigger: trigger).violations {
                let step = variant[violation.step]
                guard let index = steps.firstIndex(where: { $0.location == step.location }), reported.insert(index).inserted
                else { continue }
                let moved = violation.seconds.isFinite ? "\(Int(violation.seconds.rounded(.up))) s" : "past the access tokens' expiry"
                error("\(what) moves the clock \(moved) while a request to \(violation.path) may be held"
                      + (trigger.map { " (\($0.rawValue) variant)" } ?? "")
                      + ": a client's own request deadline (5 s for httpx) ends it first; keep it under "
                      + "\(Int(HeldClockRule.limit)) s, or mark a case about deadlines 'timeouts: true'",
                      at: step.location)
            }
        }
    }

    private mutating func step(_ node: YAMLNode) -> CaseStep? {
        guard let entries = node.mapping else {
            error("expected a step to be a mapping with one key naming the step, found \(node.kindDescription)",
                  at: node.location)
            return nil
        }
        guard entries.count == 1, let entry = entries.first else {
            error("a step has exactly one key naming the step, found \(entries.count)", at: node.location)
            return nil
        }
        guard StepKind.all.contains(entry.key) else {
            error("unknown step '\(entry.key)'" + Suggestion.hint(for: entry.key, among: StepKind.all),
                  at: entry.keyLocation)
            return nil
        }
        guard entry.value.mapping != nil else {
            error("expected the arguments of step '\(entry.key)' to be a mapping, found \(entry.value.kindDescription)",
                  at: entry.value.location)
            return nil
        }
        guard let action = stepAction(entry.key, entry.value) else { return nil }
        return CaseStep(kind: entry.key, action: action, arguments: entry.value, location: entry.keyLocation)
    }
}
