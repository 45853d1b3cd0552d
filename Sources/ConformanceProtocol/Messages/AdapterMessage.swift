public import JSONCore

/// A session transition the client reports; `transition` and `from` are null for the launch into the
/// initial state.
public struct TransitionEvent: Sendable, Hashable {
    public var transition: String?
    public var from: String?
    public var to: String
    public var account: String?
    public var generation: Int
    public var reason: String?

    public init(transition: String?, from: String?, to: String, account: String?, generation: Int, reason: String?) {
        self.transition = transition
        self.from = from
        self.to = to
        self.account = account
        self.generation = generation
        self.reason = reason
    }
}

/// What the user sees: content of a resource and whose it is, or the sign-in screen.
public struct UIEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case content, signInPrompt
    }

    public var kind: Kind
    public var resource: String?
    public var account: String?
    public var generation: Int?
    /// The `contentId` of the API response shown, so the runner knows whose data is on screen.
    public var contentID: String?

    public init(kind: Kind, resource: String? = nil, account: String? = nil, generation: Int? = nil,
                contentID: String? = nil) {
        self.kind = kind
        self.resource = resource
        self.account = account
        self.generation = generation
        self.contentID = contentID
    }
}

/// How a command ended.
public struct CommandResult: Sendable, Hashable {
    public var id: String
    public var error: ErrorInfo?
    public var content: JSONValue

    public init(id: String, error: ErrorInfo? = nil, content: JSONValue = .null) {
        self.id = id
        self.error = error
        self.content = content
    }

    public var succeeded: Bool { error == nil }
}

/// Messages from the adapter to the runner: the handshake, effects (answered with a reply) and events.
public enum AdapterMessage: Sendable, Hashable {
    /// `offlineResources` is the declared offline policy: the resources whose cached content may be shown
    /// before the session is validated (with the `offline-browsing` capability). `httpMode` is how the
    /// client's HTTP reaches the world: `http` effects (the default) or real requests to the runner's
    /// loopback server. `refreshTriggers`, when declared, lists what starts the client's refreshes
    /// (`unauthorized`, `expiry`, `background`); nil when the adapter does not say, and the runner finds out.
    /// `instancePID`, with the `fork` capability, is the process that runs this client instance: a child the
    /// adapter's process forked, which a kill ends alone.
    case hello(protocolVersion: Int, implementation: ImplementationInfo, capabilities: [String], offlineResources: [String] = [],
               httpMode: HTTPMode = .message, refreshTriggers: [String]? = nil, instancePID: Int? = nil)
    case http(id: String, cause: String?, HTTPRequestMessage)
    case storage(id: String, operation: StorageOperation, key: String, value: String?, accessibility: Accessibility?)
    case preferences(id: String, operation: StorageOperation, key: String, value: String?)
    case sleep(id: String, seconds: Double)
    /// The client gave up on an effect it sent (an `http` effect by its own timeout, a `sleep` it no longer needs):
    /// the runner stops holding it and never answers it. `reason` says why (`timeout`, `cancelled`, ...). In
    /// loopback mode `id` may name a request by its `X-Conformance-Request` header.
    case abandon(id: String, reason: String?)
    case result(CommandResult)
    case transition(TransitionEvent)
    case ui(UIEvent)
    case log(level: String, message: String)
    /// The answer to the runner's barrier. In loopback mode `httpStarted` is the number of HTTP requests
    /// the client has started since the process began, so the runner can wait until its server has them all.
    case barrier(id: String, httpStarted: Int? = nil)

    /// The id of an effect that waits for a reply.
    public var effectID: String? {
        switch self {
        case .http(let id, _, _), .storage(let id, _, _, _, _), .preferences(let id, _, _, _), .sleep(let id, _): id
        default: nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .hello(let version, let implementation, let capabilities, let offlineResources, let httpMode, let refreshTriggers,
                    let instancePID):
            var object: [String: JSONValue] = ["type": "hello", "protocol": .int(version),
                    "implementation": ["name": .string(implementation.name), "version": .string(implementation.version),
                                       "language": .string(implementation.language),
                                       "platform": .string(implementation.platform)],
                    "capabilities": .array(capabilities.map(JSONValue.string))]
            if !offlineResources.isEmpty {
                object["offlinePolicy"] = ["cachedResources": .array(offlineResources.map(JSONValue.string))]
            }
            if httpMode != .message { object["http"] = .string(httpMode.rawValue) }
            if let refreshTriggers { object["refreshTriggers"] = .array(refreshTriggers.map(JSONValue.string)) }
            if let instancePID { object["pid"] = .int(instancePID) }
            return .object(object)
        case .http(let id, let cause, let request):
            var object: [String: JSONValue] = ["type": "http", "id": .string(id), "request": request.json]
            if let cause { object["cause"] = .string(cause) }
            return .object(object)
        case .storage(let id, let operation, let key, let value, let accessibility):
            var object: [String: JSONValue] = ["type": "storage", "id": .string(id), "op": .string(operation.rawValue),
                                               "key": .string(key)]
            if let value { object["value"] = .string(value) }
            if let accessibility { object["accessibility"] = .string(accessibility.rawValue) }
            return .object(object)
        case .preferences(let id, let operation, let key, let value):
            var object: [String: JSONValue] = ["type": "preferences", "id": .string(id),
                                               "op": .string(operation.rawValue), "key": .string(key)]
            if let value { object["value"] = .string(value) }
            return .object(object)
        case .sleep(let id, let seconds):
            return ["type": "sleep", "id": .string(id), "seconds": .double(seconds)]
        case .abandon(let id, let reason):
            var object: [String: JSONValue] = ["type": "abandon", "id": .string(id)]
            if let reason { object["reason"] = .string(reason) }
            return .object(object)
        case .result(let result):
            var object: [String: JSONValue] = ["type": "result", "id": .string(result.id),
                                               "outcome": result.error == nil ? "ok" : "error"]
            if let error = result.error { object["error"] = error.json }
            if !result.content.isNull { object["content"] = result.content }
            return .object(object)
        case .transition(let event):
            var object: [String: JSONValue] = ["type": "transition", "to": .string(event.to),
                                               "generation": .int(event.generation)]
            object["transition"] = event.transition.map(JSONValue.string) ?? .null
            object["from"] = event.from.map(JSONValue.string) ?? .null
            object["account"] = event.account.map(JSONValue.string) ?? .null
            if let reason = event.reason { object["reason"] = .string(reason) }
            return .object(object)
        case .ui(let event):
            var object: [String: JSONValue] = ["type": "ui", "event": .string(event.kind.rawValue)]
            if let resource = event.resource { object["resource"] = .string(resource) }
            if let account = event.account { object["account"] = .string(account) }
            if let generation = event.generation { object["generation"] = .int(generation) }
            if let contentID = event.contentID { object["contentId"] = .string(contentID) }
            return .object(object)
        case .log(let level, let message):
            return ["type": "log", "level": .string(level), "message": .string(message)]
        case .barrier(let id, let httpStarted):
            var object: [String: JSONValue] = ["type": "barrier", "id": .string(id)]
            if let httpStarted { object["httpStarted"] = .int(httpStarted) }
            return .object(object)
        }
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let type = try FieldReader(json, what: "an adapter message").string("type")
        let reader = try FieldReader(json, what: "a '\(type)' message")
        switch type {
        case "hello":
            let implementation = try FieldReader(reader.value("implementation"), what: "the implementation")
            let capabilities = reader.has("capabilities") ? try Self.strings(reader.value("capabilities"), "capabilities") : []
            var offlineResources: [String] = []
            if reader.has("offlinePolicy") {
                let policy = try FieldReader(reader.value("offlinePolicy"), what: "the offline policy")
                offlineResources = try Self.strings(policy.value("cachedResources"), "offlinePolicy.cachedResources")
            }
            self = .hello(
                protocolVersion: try reader.int("protocol"),
                implementation: ImplementationInfo(
                    name: try implementation.string("name"), version: try implementation.string("version"),
                    language: try implementation.string("language"), platform: try implementation.string("platform")),
                capabilities: capabilities, offlineResources: offlineResources,
                httpMode: reader.has("http") ? try reader.choice("http", as: HTTPMode.self) : .message,
                refreshTriggers: reader.has("refreshTriggers") ? try Self.strings(reader.value("refreshTriggers"), "refreshTriggers") : nil,
                instancePID: reader.has("pid") ? try reader.int("pid") : nil)
        case "http":
            self = .http(id: try reader.string("id"), cause: try reader.optionalString("cause"),
                         try HTTPRequestMessage(json: reader.value("request")))
        case "storage":
            let accessibility = reader.has("accessibility") ? try reader.choice("accessibility", as: Accessibility.self) : nil
            self = .storage(id: try reader.string("id"), operation: try reader.choice("op", as: StorageOperation.self),
                            key: try reader.string("key"), value: try reader.optionalString("value"),
                            accessibility: accessibility)
        case "preferences":
            self = .preferences(id: try reader.string("id"), operation: try reader.choice("op", as: StorageOperation.self),
                                key: try reader.string("key"), value: try reader.optionalString("value"))
        case "sleep":
            self = .sleep(id: try reader.string("id"), seconds: try reader.double("seconds"))
        case "abandon":
            self = .abandon(id: try reader.string("id"), reason: try reader.optionalString("reason"))
        case "result":
            let outcome = try reader.string("outcome")
            guard outcome == "ok" || outcome == "error" else {
                throw ProtocolViolation(.invalidValue, "'outcome' of a result is '\(outcome)', not ok or error")
            }
            let error = outcome == "error" ? try ErrorInfo(json: reader.value("error")) : nil
            self = .result(CommandResult(id: try reader.string("id"), error: error,
                                         content: reader.has("content") ? try reader.value("content") : .null))
        case "transition":
            self = .transition(TransitionEvent(
                transition: try reader.optionalString("transition"), from: try reader.optionalString("from"),
                to: try reader.string("to"), account: try reader.optionalString("account"),
                generation: try reader.int("generation"), reason: try reader.optionalString("reason")))
        case "ui":
            self = .ui(UIEvent(
                kind: try reader.choice("event", as: UIEvent.Kind.self), resource: try reader.optionalString("resource"),
                account: try reader.optionalString("account"), generation: try reader.optionalInt("generation"),
                contentID: try reader.optionalString("contentId")))
        case "log":
            self = .log(level: try reader.string("level"), message: try reader.string("message"))
        case "barrier":
            let httpStarted = try reader.optionalInt("httpStarted")
            if let httpStarted, httpStarted < 0 {
                throw ProtocolViolation(.invalidValue, "'httpStarted' of a barrier must not be negative")
            }
            self = .barrier(id: try reader.string("id"), httpStarted: httpStarted)
        default:
            throw ProtocolViolation(.unknownType, "unknown adapter message type '\(type)'")
        }
    }
}

extension AdapterMessage {
    private static func strings(_ value: JSONValue, _ name: String) throws(ProtocolViolation) -> [String] {
        guard let list = value.array else { throw ProtocolViolation(.wrongType, "'\(name)' must be an array of strings") }
        var result: [String] = []
        for item in list {
            guard let text = item.string else { throw ProtocolViolation(.wrongType, "'\(name)' must be an array of strings") }
            result.append(text)
        }
        return result
    }

    /// Parses one protocol line.
    public init(line: String) throws(ProtocolViolation) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ProtocolViolation(.notJSON, "not JSON: \(error)")
        }
        try self.init(json: value)
    }
}

extension RunnerMessage {
    public init(line: String) throws(ProtocolViolation) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ProtocolViolation(.notJSON, "not JSON: \(error)")
        }
        try self.init(json: value)
    }

    public var line: String { json.jsonText }
}

extension AdapterMessage {
    public var line: String { json.jsonText }
}
