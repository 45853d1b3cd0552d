import SpecYAML

/// Reads the arguments of each step kind into a `StepAction`, strictly: unknown keys and wrong types are errors.
extension SpecDecoder {
    mutating func stepAction(_ kind: String, _ node: YAMLNode) -> StepAction? {
        let what = "step '\(kind)'"
        if StepKind.systemEvents.contains(kind) {
            guard let map = mapping(node, what, allowed: []) else { return nil }
            finish(map)
            return .system(kind)
        }
        switch kind {
        case "launch", "signOut", "barrier", "reboot", "refreshDue":
            guard let map = mapping(node, what, allowed: []) else { return nil }
            finish(map)
            switch kind {
            case "launch": return .launch
            case "signOut": return .signOut
            case "reboot": return .reboot
            case "refreshDue": return .refreshDue
            default: return .barrier
            }
        case "kill":
            guard let map = mapping(node, what, allowed: ["at"]) else { return nil }
            let point = map.optional("at").flatMap { choice($0, "'at'", as: KillPoint.self) }
            finish(map)
            return .kill(point?.value ?? .now)
        case "signIn", "switchAccount":
            guard let credentials = credentials(node, what) else { return nil }
            return kind == "signIn" ? .signIn(credentials) : .switchAccount(credentials)
        case "request":
            guard var map = mapping(node, what, allowed: ["resource", "count"]) else { return nil }
            let resource = map.required("resource").flatMap { identifier($0, "resource", pattern: .lowerKebab) }
            let count = map.optional("count").flatMap { positive($0, "count") }
            finish(map)
            guard let resource else { return nil }
            return .request(resource: resource.value, count: count ?? 1)
        case "advance", "skewClock":
            guard var map = mapping(node, what, allowed: ["seconds"]) else { return nil }
            let range = kind == "advance" ? NumericLimits.seconds : NumericLimits.skew
            let seconds = map.required("seconds").flatMap { value -> Double? in
                guard let given = number(value, "seconds") else { return nil }
                if kind == "advance", given < 0 {
                    error("time only moves forward; 'seconds' of advance must not be negative", at: value.location)
                    return nil
                }
                return within(range, given, "seconds", at: value.location)
            }
            finish(map)
            guard let seconds else { return nil }
            return kind == "advance" ? .advance(seconds: seconds) : .skewClock(seconds: seconds)
        case "fault":
            guard var map = mapping(node, what, allowed: ["path", "kind", "times"]) else { return nil }
            let path = map.required("path").flatMap { endpointPath($0) }
            let faultKind = map.required("kind").flatMap { choice($0, "fault kind", as: FaultKind.self) }
            let times = map.optional("times").flatMap { positive($0, "times") }
            finish(map)
            guard let path, let faultKind else { return nil }
            return .fault(path: path, kind: faultKind.value, times: times ?? 1)
        case "storageFault":
            guard var map = mapping(node, what, allowed: ["kind", "times"]) else { return nil }
            let faultKind = map.required("kind").flatMap { choice($0, "storage fault kind", as: StorageFaultKind.self) }
            let times = map.optional("times").flatMap { positive($0, "times") }
            finish(map)
            guard let faultKind else { return nil }
            return .storageFault(kind: faultKind.value, times: times ?? 1)
        case "hold", "release":
            guard var map = mapping(node, what, allowed: ["path"]) else { return nil }
            let path = map.required("path").flatMap { endpointPath($0) }
            finish(map)
            guard let path else { return nil }
            return kind == "hold" ? .hold(path: path) : .release(path: path)
        case "configure":
            guard let map = mapping(node, what, allowed: ["reuseInterval", "accessTokenLifetime"]) else { return nil }
            let settings = ServerSettings(
                reuseInterval: map.optional("reuseInterval").flatMap {
                    number($0, "reuseInterval", in: NumericLimits.seconds)
                },
                accessTokenLifetime: map.optional("accessTokenLifetime").flatMap {
                    number($0, "accessTokenLifetime", in: NumericLimits.seconds)
                })
            finish(map)
            return .configure(settings)
        case "revoke":
            guard var map = mapping(node, what, allowed: ["account"]) else { return nil }
            let account = map.required("account").flatMap { accountName($0) }
            finish(map)
            guard let account else { return nil }
            return .revoke(account: account)
        case "schedule":
            guard var map = mapping(node, what, allowed: ["seed", "delay", "strategy", "changes"]) else { return nil }
            let seed = map.required("seed").flatMap { integer($0, "seed", in: NumericLimits.scheduleSeed) }
            let delay = map.optional("delay").flatMap { integer($0, "delay", in: NumericLimits.scheduleDelay) }
            let strategyNode = map.optional("strategy")
            let strategy = strategyNode.flatMap { choice($0, "schedule strategy", as: ScheduleStrategy.self) }?.value
            let changesNode = map.optional("changes")
            let changes = changesNode.flatMap { integer($0, "changes", in: NumericLimits.scheduleChanges) }
            finish(map)
            if let changesNode, strategy != .pct {
                error("'changes' counts the priority change points of 'strategy: pct'; add 'strategy: pct' or remove it",
                      at: changesNode.location)
                return nil
            }
            guard let seed, strategyNode == nil || strategy != nil else { return nil }
            return .schedule(BarrierScheduleSettings(seed: UInt64(seed), delayPercent: delay ?? BarrierScheduleSettings.defaultDelayPercent,
                                                     priorityChanges: strategy == .pct ? changes ?? BarrierScheduleSettings.defaultPriorityChanges : nil))
        case "expect":
            return expectation(node, kind: kind).map(StepAction.expect)
        case "require":
            return expectation(node, kind: kind).map(StepAction.require)
        default:
            return nil
        }
    }

    private mutating func credentials(_ node: YAMLNode, _ what: String) -> Credentials? {
        guard var map = mapping(node, what, allowed: ["account", "email", "password"]) else { return nil }
        defer { finish(map) }
        if let account = map.optional("account") {
            if map.optional("email") != nil || map.optional("password") != nil {
                error("\(what) takes either 'account' or 'email' and 'password', not both", at: node.location)
            }
            return accountName(account).map(Credentials.account)
        }
        // Raw input may be empty or malformed on purpose: it is what validation is tested with.
        let email = map.required("email").flatMap { rawInput($0, "email") }
        let password = map.required("password").flatMap { rawInput($0, "password") }
        guard let email, let password else { return nil }
        return .raw(email: email, password: password)
    }

    /// Form input as typed: any scalar text, empty included, but not a list or a mapping.
    private mutating func rawInput(_ node: YAMLNode, _ what: String) -> String? {
        guard let scalar = node.scalar else {
            error("expected \(what) to be text, found \(node.kindDescription)", at: node.location)
            return nil
        }
        return scalar.text
    }

    private mutating func accountName(_ node: YAMLNode) -> String? {
        guard let name = string(node, "account") else { return nil }
        guard StepKind.accounts.contains(name.value) else {
            error("unknown account '\(name.value)'; the world has \(StepKind.accounts.joined(separator: ", "))"
                  + Suggestion.hint(for: name.value, among: StepKind.accounts), at: node.location)
            return nil
        }
        return name.value
    }

    private mutating func endpointPath(_ node: YAMLNode) -> String? {
        guard let path = string(node, "path") else { return nil }
        guard path.value.hasPrefix("/") else {
            error("path '\(path.value)' must start with '/'", at: node.location)
            return nil
        }
        return path.value
    }

    mutating func number(_ node: YAMLNode, _ what: String) -> Double? {
        switch node.scalar?.resolved {
        case .int(let value): return Double(value)
        case .double(let value) where value.isFinite: return value
        case .double:
            error("\(what) is too large to be a number", at: node.location)
            return nil
        default:
            error("expected \(what) to be a number, found \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// A number within `range`; out of it is an error that names the range.
    mutating func number(_ node: YAMLNode, _ what: String, in range: ClosedRange<Double>) -> Double? {
        guard let value = number(node, what) else { return nil }
        return within(range, value, what, at: node.location)
    }

    private mutating func within(_ range: ClosedRange<Double>, _ value: Double, _ what: String,
                                 at location: SourceLocation) -> Double? {
        guard range.contains(value) else {
            error("\(what) must be from \(NumericLimits.describe(range.lowerBound)) to "
                  + "\(NumericLimits.describe(range.upperBound))", at: location)
            return nil
        }
        return value
    }

    /// An integer within `range`; out of it is an error that names the range.
    private mutating func integer(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard let scalar = node.scalar, case .int(let value) = scalar.resolved else {
            if case .double? = node.scalar?.resolved, node.scalar.map({ YAMLScalar.isIntegerText($0.text) }) == true {
                // Digits only, but too many for an integer: out of range, not of the wrong type.
                error("\(what) must be from \(range.lowerBound) to \(range.upperBound)", at: node.location)
                return nil
            }
            return integer(node, what)?.value
        }
        guard range.contains(value) else {
            if range.lowerBound == 1, value < 1 {
                error("\(what) must be at least 1", at: node.location)
            } else if range.lowerBound == 0, value < 0 {
                error("\(what) must not be negative", at: node.location)
            } else {
                error("\(what) must be from \(range.lowerBound) to \(range.upperBound)", at: node.location)
            }
            return nil
        }
        return value
    }

    mutating func positive(_ node: YAMLNode, _ what: String) -> Int? {
        integer(node, what, in: NumericLimits.repetitions)
    }

    private mutating func count(_ node: YAMLNode, _ what: String) -> Int? {
        integer(node, what, in: NumericLimits.observedCount)
    }

    private static let assertionKeys = [
        "state", "results", "requests", "held", "prompts", "shown", "notShown", "transitions", "tokensStored",
        "revoked",
    ]

    /// `expect` takes the assertions and `for`, the requirements they verify; `require` takes the assertions only.
    private mutating func expectation(_ node: YAMLNode, kind: String) -> Expectation? {
        let verifies = kind == "expect"
        guard var map = mapping(node, "step '\(kind)'", allowed: Self.assertionKeys + ["under"] + (verifies ? ["for", "failFor"] : []))
        else { return nil }
        var expectation = Expectation()
        if verifies, let renamed = map.entries.first(where: { $0.key == "failFor" }) {
            // The key of format 1's first drafts: say what replaced it instead of two unrelated errors.
            error("'failFor' is gone: an expect names the requirements it verifies with 'for', and is charged to those only",
                  at: renamed.keyLocation)
            expectation.verifies = stringList(renamed.value, "for")
        } else if verifies, let requirements = map.required("for") {
            expectation.verifies = stringList(requirements, "for")
        }
        expectation.state = map.optional("state").flatMap { string($0, "state") }
        expectation.results = map.optional("results").flatMap { resultExpectation($0) }
        if let requests = map.optional("requests").flatMap({ list($0, "requests") }) {
            expectation.requests = requests.compactMap { requestExpectation($0) }
        }
        expectation.held = map.optional("held").flatMap { count($0, "held") }
        expectation.prompts = map.optional("prompts").flatMap { count($0, "prompts") }
        if let shown = map.optional("shown") {
            expectation.shown = stringList(shown, "shown").compactMap { checkedAccount($0) }
        }
        if let notShown = map.optional("notShown") {
            expectation.notShown = stringList(notShown, "notShown").compactMap { checkedAccount($0) }
        }
        expectation.transitions = map.optional("transitions").map { node in
            guard let items = list(node, "transitions", allowEmpty: true) else { return [] }
            return items.compactMap { string($0, "each entry of transitions") }
        }
        if let stored = map.optional("tokensStored") {
            guard case .bool(let flag)? = stored.scalar?.resolved else {
                error("expected tokensStored to be true or false, found \(stored.kindDescription)", at: stored.location)
                finish(map)
                return nil
            }
            expectation.tokensStored = flag
        }
        expectation.revoked = map.optional("revoked").flatMap { accountName($0) }
        if let under = map.optional("under") {
            expectation.under = list(under, "under")?.compactMap { choice($0, "trigger", as: RefreshTrigger.self) } ?? []
        }
        if !map.entries.contains(where: { Self.assertionKeys.contains($0.key) }) {
            error("step '\(kind)' checks nothing; give at least one of \(Self.assertionKeys.joined(separator: ", "))",
                  at: node.location)
        }
        finish(map)
        return expectation
    }

    private mutating func checkedAccount(_ name: Located<String>) -> String? {
        guard StepKind.accounts.contains(name.value) else {
            error("unknown account '\(name.value)'" + Suggestion.hint(for: name.value, among: StepKind.accounts),
                  at: name.location)
            return nil
        }
        return name.value
    }

    private mutating func resultExpectation(_ node: YAMLNode) -> ResultExpectation? {
        guard let map = mapping(node, "'results'", allowed: ["ok", "failed", "codes"]) else { return nil }
        var expectation = ResultExpectation(codes: [:])
        expectation.ok = map.optional("ok").flatMap { count($0, "ok") }
        expectation.failed = map.optional("failed").flatMap { count($0, "failed") }
        if let codes = map.optional("codes"), let entries = codes.mapping {
            for entry in entries {
                if let value = count(entry.value, "the count of '\(entry.key)'") { expectation.codes[entry.key] = value }
            }
        } else if let codes = map.optional("codes") {
            error("expected codes to be a mapping of error code to count, found \(codes.kindDescription)", at: codes.location)
        }
        finish(map)
        return expectation
    }

    private mutating func requestExpectation(_ node: YAMLNode) -> RequestExpectation? {
        guard var map = mapping(node, "a request count", allowed: ["path", "count", "atLeast", "atMost"]) else { return nil }
        let path = map.required("path").flatMap { endpointPath($0) }
        let exact = map.optional("count").flatMap { count($0, "count") }
        let atLeast = map.optional("atLeast").flatMap { count($0, "atLeast") }
        let atMost = map.optional("atMost").flatMap { count($0, "atMost") }
        if exact == nil, atLeast == nil, atMost == nil {
            error("a request count needs 'count', 'atLeast' or 'atMost'", at: node.location)
        }
        finish(map)
        guard let path else { return nil }
        return RequestExpectation(path: path, count: exact, atLeast: atLeast, atMost: atMost)
    }
}
