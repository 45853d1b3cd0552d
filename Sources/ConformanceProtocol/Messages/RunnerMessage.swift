public import JSONCore

/// What a reply to an effect carries.
public enum ReplyBody: Sendable, Hashable {
    /// An HTTP response of any status.
    case response(HTTPResponseMessage)
    /// No HTTP response: `timeout`, `offline`, `connectionLost`.
    case failure(ErrorInfo)
    /// A storage or preferences read; nil when the key is absent.
    case value(String?)
    /// A storage operation that failed, such as `locked`.
    case error(ErrorInfo)
    /// Done (a write, a delete, a sleep that ended).
    case done
}

/// Messages from the runner to the adapter.
public enum RunnerMessage: Sendable, Hashable {
    /// `httpBaseURL` is set when the adapter asked for loopback HTTP: where the world's endpoints are served.
    /// `world` describes the world profile in force (its endpoints and field names); an adapter may ignore it.
    case welcome(seed: UInt64, clock: ClockReading, httpBaseURL: String? = nil, world: WorldDescription? = nil)
    case error(ErrorInfo)
    case command(AppCommand)
    case reply(id: String, ReplyBody)
    case clock(ClockReading)
    /// In loopback mode `httpAnswered` is the number of HTTP responses (and resets) the runner has sent the
    /// process so far: the adapter answers once its client has received them all and is idle.
    case barrier(id: String, httpAnswered: Int? = nil)
    /// Only to an adapter that declared the `reset` capability, between cases: drop every in-memory state
    /// (client, pending effects, loopback connections) and answer with a `hello`, as a fresh process would;
    /// a `welcome` follows. Storage lives in the runner's world, so nothing persists across a reset.
    case reset

    public var json: JSONValue {
        switch self {
        case .welcome(let seed, let clock, let httpBaseURL, let world):
            var object: [String: JSONValue] = ["type": "welcome", "protocol": .int(adapterProtocolVersion),
                                               "seed": .string(String(seed)), "clock": clock.json]
            if let httpBaseURL { object["http"] = ["baseURL": .string(httpBaseURL)] }
            if let world { object["world"] = world.json }
            return .object(object)
        case .error(let info):
            var object = info.json.object ?? [:]
            object["type"] = "error"
            return .object(object)
        case .command(let command):
            var object: [String: JSONValue] = ["type": "command", "id": .string(command.id),
                                               "command": .string(command.kind.rawValue)]
            if let email = command.email { object["email"] = .string(email) }
            if let password = command.password { object["password"] = .string(password) }
            if let resource = command.resource { object["resource"] = .string(resource) }
            return .object(object)
        case .reply(let id, let body):
            var object: [String: JSONValue] = ["type": "reply", "id": .string(id)]
            switch body {
            case .response(let response): object["response"] = response.json
            case .failure(let info): object["failure"] = info.json
            case .value(let value): object["value"] = value.map(JSONValue.string) ?? .null
            case .error(let info): object["error"] = info.json
            case .done: break
            }
            return .object(object)
        case .clock(let clock):
            return ["type": "clock", "wall": .double(clock.wall), "monotonic": .double(clock.monotonic)]
        case .barrier(let id, let httpAnswered):
            var object: [String: JSONValue] = ["type": "barrier", "id": .string(id)]
            if let httpAnswered { object["httpAnswered"] = .int(httpAnswered) }
            return .object(object)
        case .reset:
            return ["type": "reset"]
        }
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let fields = try FieldReader(json, what: "a runner message")
        let type = try fields.string("type")
        let what = "a '\(type)' message"
        let reader = try FieldReader(json, what: what)
        switch type {
        case "welcome":
            let seedText = try reader.string("seed")
            guard let seed = UInt64(seedText) else { throw ProtocolViolation(.invalidValue, "'seed' must be a decimal integer") }
            var baseURL: String?
            if reader.has("http") {
                baseURL = try FieldReader(reader.value("http"), what: "the 'http' of a welcome").optionalString("baseURL")
            }
            let world = reader.has("world") ? try WorldDescription(json: reader.value("world")) : nil
            self = .welcome(seed: seed, clock: try ClockReading(json: reader.value("clock")), httpBaseURL: baseURL,
                            world: world)
        case "error":
            self = .error(try ErrorInfo(json: json))
        case "command":
            self = .command(AppCommand(
                id: try reader.string("id"), kind: try reader.choice("command", as: CommandKind.self),
                email: try reader.optionalString("email"), password: try reader.optionalString("password"),
                resource: try reader.optionalString("resource")))
        case "reply":
            let id = try reader.string("id")
            if reader.has("response") {
                self = .reply(id: id, .response(try HTTPResponseMessage(json: reader.value("response"))))
            } else if reader.has("failure") {
                self = .reply(id: id, .failure(try ErrorInfo(json: reader.value("failure"))))
            } else if reader.has("error") {
                self = .reply(id: id, .error(try ErrorInfo(json: reader.value("error"))))
            } else if reader.has("value") {
                self = .reply(id: id, .value(try reader.optionalString("value")))
            } else {
                self = .reply(id: id, .done)
            }
        case "clock":
            self = .clock(try ClockReading(json: json))
        case "barrier":
            self = .barrier(id: try reader.string("id"), httpAnswered: try reader.optionalInt("httpAnswered"))
        case "reset":
            self = .reset
        default:
            throw ProtocolViolation(.unknownType, "unknown runner message type '\(type)'")
        }
    }
}

extension ClockReading {
    public var json: JSONValue { ["wall": .double(wall), "monotonic": .double(monotonic)] }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: "a clock")
        self.init(wall: try reader.double("wall"), monotonic: try reader.double("monotonic"))
    }
}

extension ErrorInfo {
    public var json: JSONValue {
        var object: [String: JSONValue] = ["code": .string(code), "definite": .bool(definite)]
        if let message { object["message"] = .string(message) }
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: "an error")
        self.init(code: try reader.string("code"), message: try reader.optionalString("message"),
                  definite: try reader.bool("definite", default: true))
    }
}

extension HTTPResponseMessage {
    public var json: JSONValue {
        ["status": .int(status), "headers": .object(headers.mapValues(JSONValue.string)), "body": body]
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: "an HTTP response")
        self.init(status: try reader.int("status"), headers: try reader.stringMap("headers"),
                  body: reader.has("body") ? try reader.value("body") : .null)
    }
}

extension HTTPRequestMessage {
    public var json: JSONValue {
        ["method": .string(method), "path": .string(path), "headers": .object(headers.mapValues(JSONValue.string)),
         "body": body]
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: "an HTTP request")
        self.init(method: try reader.string("method"), path: try reader.string("path"),
                  headers: try reader.stringMap("headers"), body: reader.has("body") ? try reader.value("body") : .null)
    }
}
