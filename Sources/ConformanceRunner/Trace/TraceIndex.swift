import ConformanceProtocol
import SimulatedWorld
import SpecModel

/// The trace read back as facts: each HTTP exchange with its reply, each transition, what was shown,
/// stored and logged, each with the event number that proves it.
struct TraceIndex {
    struct Exchange {
        let event: Int
        let instance: Int
        let step: Int
        let id: String
        let cause: String?
        let request: HTTPRequestMessage
        var replyEvent: Int?
        var reply: ReplyBody?
        /// The client abandoned it before any reply (`abandon`): the world never answers it.
        var abandonEvent: Int?

        /// When it stopped being in flight, short of the process dying: its reply, or the client's abandon.
        var endedEvent: Int? { replyEvent ?? abandonEvent }

        var status: Int? {
            if case .response(let response)? = reply { return response.status }
            return nil
        }

        var responseBody: HTTPResponseMessage? {
            if case .response(let response)? = reply { return response }
            return nil
        }

        /// The design's explicit rejection (001: "400 invalid_grant, a revoked session"): the one answer that
        /// ends a session. Any other refusal of a refresh, a 401 `invalid_token` say, may be retried.
        var isRejection: Bool {
            guard let response = responseBody else { return false }
            let error = response.body["error"]?.string
            return (response.status == 400 && error == "invalid_grant") || error == "session_revoked"
        }
    }

    /// A transition the client reported. With a state machine (`init(_:profile:machine:)`), `message.transition`
    /// is the machine's transition it did (`TransitionResolution`), whatever the client called it.
    struct Transition {
        let event: Int
        let instance: Int
        let step: Int
        let message: TransitionEvent
        /// The name the client reported.
        let reported: String?
        /// What the client did, as a path of the machine: nil for the launch's entry into the initial state,
        /// for what no transition does, and without a machine.
        let path: StateMachine.Path?

        init(event: Int, instance: Int, step: Int, message: TransitionEvent, reported: String?, path: StateMachine.Path?) {
            self.event = event
            self.instance = instance
            self.step = step
            self.message = message
            self.reported = reported
            self.path = path
        }
    }

    /// A storage change (`set` or `delete`, secure storage or preferences) and what became of it.
    struct StorageChange {
        enum Outcome { case unanswered, applied, refused, discarded }
        let event: Int
        let instance: Int
        let secure: Bool
        let operation: StorageOperation
        let key: String
        /// What a `set` stores ("" for a delete).
        let value: String
        /// A secure `set`'s accessibility class, as the client asked for it.
        let accessibility: Accessibility?
        /// `refused`: answered with an error (locked, `storageFault`); `discarded`: dropped by a kill.
        var outcome = Outcome.unanswered
        /// The event of the world's answer, for `applied` and `refused`.
        var answeredAt: Int?
    }

    struct Located<T> {
        let event: Int
        let instance: Int
        let step: Int
        let value: T
    }

    private(set) var exchanges: [Exchange] = []

    /// The position of the first exchange of `exchanges` (in event order, as the index lists them) whose request
    /// came after `event`: a binary search, for oracles that ask it once per request.
    static func firstIndex(in exchanges: [Exchange], after event: Int) -> Int? {
        var low = 0, high = exchanges.count
        while low < high {
            let middle = (low + high) / 2
            if exchanges[middle].event > event { high = middle } else { low = middle + 1 }
        }
        return low < exchanges.count ? low : nil
    }
    private(set) var transitions: [Transition] = []
    /// The storage changes that are `set`s and took effect or are still unanswered: not discarded by a kill,
    /// not refused with an error.
    private(set) var storageWrites: [StorageChange] = []
    private(set) var storageReads: [Located<(key: String, reply: ReplyBody?)>] = []
    private(set) var storageChanges: [StorageChange] = []
    private(set) var ui: [Located<UIEvent>] = []
    private(set) var logs: [Located<String>] = []
    private(set) var results: [Located<CommandResult>] = []
    private(set) var commands: [Located<AppCommand>] = []
    private(set) var kills: [Located<String>] = []
    private(set) var launches: [Located<Int>] = []
    /// Every text the client emitted as logs, UI events, transitions and results (preferences are
    /// checked on their own: they are storage, not output).
    private(set) var emittedTexts: [Located<String>] = []

    /// The world profile whose auth requests the index shows in `json-v1` form (`WorldProfile.canonicalRequest`),
    /// so the oracles read one dialect whatever the client spoke; nil keeps every request as sent.
    private let profile: WorldProfile?

    /// `machine`: read each reported transition as what it did (`TransitionResolution`); without it, names stay
    /// as reported.
    init(_ trace: Trace, profile: WorldProfile? = nil, machine: StateMachine? = nil) {
        self.profile = profile
        var exchangeIndex: [String: Int] = [:]
        var readIndex: [String: Int] = [:]
        var changeIndex: [String: Int] = [:]
        for event in trace.events {
            switch event.kind {
            case .processStarted(let instance):
                launches.append(Located(event: event.number, instance: instance, step: event.step, value: instance))
            case .processKilled(_, let reason):
                kills.append(Located(event: event.number, instance: event.instance, step: event.step, value: reason))
            case .sent(.command(let command)):
                commands.append(Located(event: event.number, instance: event.instance, step: event.step, value: command))
            case .sent(.reply(let id, let body)):
                let key = "\(event.instance)/\(id)"
                if let index = changeIndex[key] {
                    if case .error = body { storageChanges[index].outcome = .refused } else { storageChanges[index].outcome = .applied }
                    storageChanges[index].answeredAt = event.number
                }
                if let index = exchangeIndex[key] {
                    exchanges[index].replyEvent = event.number
                    exchanges[index].reply = body
                } else if let index = readIndex[key] {
                    storageReads[index] = Located(event: storageReads[index].event, instance: event.instance,
                                                  step: storageReads[index].step,
                                                  value: (storageReads[index].value.key, body))
                }
            case .received(let message):
                record(message, event: event, exchangeIndex: &exchangeIndex, readIndex: &readIndex)
                switch message {
                case .storage(let id, let operation, let key, let value, let accessibility) where operation != .get:
                    changeIndex["\(event.instance)/\(id)"] = storageChanges.count
                    storageChanges.append(StorageChange(event: event.number, instance: event.instance, secure: true, operation: operation,
                                                        key: key, value: value ?? "", accessibility: accessibility))
                case .preferences(let id, let operation, let key, let value) where operation != .get:
                    changeIndex["\(event.instance)/\(id)"] = storageChanges.count
                    storageChanges.append(StorageChange(event: event.number, instance: event.instance, secure: false, operation: operation,
                                                        key: key, value: value ?? "", accessibility: nil))
                default:
                    break
                }
            case .writeDiscarded(let id):
                if let index = changeIndex["\(event.instance)/\(id)"] { storageChanges[index].outcome = .discarded }
            case .effectAbandoned(let id):
                if let index = exchangeIndex["\(event.instance)/\(id)"], exchanges[index].replyEvent == nil {
                    exchanges[index].abandonEvent = event.number
                }
            default:
                break
            }
        }
        storageWrites = storageChanges.filter { $0.operation == .set && [.applied, .unanswered].contains($0.outcome) }
        if let machine {
            transitions = TransitionResolution(machine: machine, commands: commands, results: results, exchanges: exchanges)
                .resolve(transitions)
        }
    }

    private mutating func record(_ message: AdapterMessage, event: TraceEvent, exchangeIndex: inout [String: Int],
                                 readIndex: inout [String: Int]) {
        let at = { (text: String) in Located(event: event.number, instance: event.instance, step: event.step, value: text) }
        switch message {
        case .http(let id, let cause, let request):
            exchangeIndex["\(event.instance)/\(id)"] = exchanges.count
            exchanges.append(Exchange(event: event.number, instance: event.instance, step: event.step, id: id,
                                      cause: cause, request: profile.map { $0.canonicalRequest(request) } ?? request))
        case .storage(let id, .get, let key, _, _):
            readIndex["\(event.instance)/\(id)"] = storageReads.count
            storageReads.append(Located(event: event.number, instance: event.instance, step: event.step, value: (key, nil)))
        case .transition(let transition):
            transitions.append(Transition(event: event.number, instance: event.instance, step: event.step,
                                          message: transition, reported: transition.transition, path: nil))
            emittedTexts.append(at(message.json.jsonText))
        case .ui(let uiEvent):
            ui.append(Located(event: event.number, instance: event.instance, step: event.step, value: uiEvent))
            emittedTexts.append(at(message.json.jsonText))
        case .log(_, let text):
            logs.append(at(text))
            emittedTexts.append(at(text))
        case .result(let result):
            results.append(Located(event: event.number, instance: event.instance, step: event.step, value: result))
            emittedTexts.append(at(message.json.jsonText))
        default:
            break
        }
    }

    /// The client's state just before event `number`, from the transitions before it in the same instance.
    func state(before number: Int, instance: Int) -> String? {
        transitions.last { $0.event < number && $0.instance == instance }?.message.to
    }

    /// Whether the runner sent `instance` a command strictly between events `after` and `before`: a user action
    /// or device signal that may explain what the client did next.
    func commandSent(in instance: Int, between after: Int, and before: Int) -> Bool {
        commands.contains { $0.instance == instance && $0.event > after && $0.event < before }
    }

    /// Whether a 401 of an app request of `refresh`'s command came back before it, with no refresh of that command
    /// in between: the refresh is that request's 401 handling. A refresh that names no command may be any
    /// request's: then any app request's 401 since the last refresh counts.
    func answersOwnUnauthorized(_ refresh: Exchange) -> Bool {
        let ofItsCommand = { (exchange: Exchange) in
            exchange.instance == refresh.instance && (refresh.cause == nil || exchange.cause == refresh.cause)
        }
        return exchanges.contains { refused in
            guard ofItsCommand(refused), !refused.isAuthEndpoint, refused.status == 401,
                  let answered = refused.replyEvent, answered < refresh.event else { return false }
            return !exchanges.contains { $0.isRefresh && ofItsCommand($0) && $0.event > answered && $0.event < refresh.event }
        }
    }

    /// The last transition that ended a session in `instance` before event `number`.
    func sessionEnd(before number: Int, instance: Int) -> Transition? {
        transitions.last {
            $0.instance == instance && $0.event < number && sessionEndingTransitions.contains($0.message.transition ?? "")
        }
    }
}
