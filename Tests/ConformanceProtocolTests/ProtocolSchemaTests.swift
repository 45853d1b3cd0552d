import ConformanceProtocol
import Foundation
import JSONCore
import PythonRunner
import Testing

// The JSON Schemas in Specs/schema/protocol/ must agree with the Swift encoders and decoders, which are
// authoritative. A sample of every message kind in both directions is built from the Swift types, encoded with
// `.line`, and validated by a real validator: Python's `jsonschema` (Draft202012Validator), driven by
// Specs/schema/validate_schema.py, as Tests/SpecModelTests/SchemaAgreementTests.swift does for the spec schemas.
// Without python3 and jsonschema these tests fail with instructions; they never pass without validating.

/// The adapter protocol's JSON Schemas accept what the Swift encoders write and reject broken messages.
@Suite("Protocol schemas")
struct ProtocolSchemaTests {
    @Test("every message the Swift encoders write is valid against its direction's schema", .needsJSONSchema)
    func encodedSamplesAreValid() throws {
        let samples = ProtocolSamples.all
        let verdicts = try ProtocolValidator.validate(samples.map { ($0.name, $0.direction, $0.message.line) })
        for sample in samples {
            guard let verdict = verdicts[sample.name] else { continue }
            #expect(verdict.isValid, """
                \(sample.name) is INVALID against \(sample.direction.schemaFile): \(verdict.message)
                line: \(sample.message.line)
                """)
        }
        print("protocol schemas: validated \(samples.count) encoded samples")
    }

    @Test("each schema is JSON with no key given twice in an object (a second one silently replaces the first)")
    func schemasHaveNoDuplicateKeys() throws {
        for direction in Direction.allCases {
            let text = try String(contentsOf: direction.schema, encoding: .utf8)
            #expect(throws: Never.self, "\(direction.schemaFile)") { _ = try JSONParser.parse(text) }
        }
    }

    @Test("the samples cover every message type of each schema, and nothing else")
    func samplesCoverEverySchemaType() throws {
        for direction in Direction.allCases {
            let schema = try SchemaDocument(direction)
            let schemaTypes = try schema.stringList("properties", "type", "enum")
            let oneOf = try schema.refs("oneOf")
            let sampledTypes = Set(ProtocolSamples.all.filter { $0.direction == direction }.compactMap(\.message.type))
            #expect(Set(schemaTypes) == sampledTypes,
                    "\(direction.schemaFile) lists types \(schemaTypes.sorted()); the encoders wrote \(sampledTypes.sorted())")
            #expect(Set(oneOf) == Set(schemaTypes.map { "#/$defs/\($0)" }),
                    "the oneOf of \(direction.schemaFile) must name one $defs entry per type: \(oneOf)")
        }
    }

    @Test("the schemas' enumerations are exactly the Swift enumerations")
    func enumerationsMatchTheSwiftTypes() throws {
        let runner = try SchemaDocument(.runner)
        let adapter = try SchemaDocument(.adapter)
        #expect(try runner.stringList("$defs", "command", "properties", "command", "enum")
                    == CommandKind.allCases.map(\.rawValue))
        #expect(try adapter.stringList("$defs", "storageOperation", "enum") == StorageOperation.allCases.map(\.rawValue))
        #expect(try adapter.stringList("$defs", "storage", "properties", "accessibility", "enum")
                    == Accessibility.allCases.map(\.rawValue))
        #expect(try adapter.stringList("$defs", "ui", "properties", "event", "enum") == UIEvent.Kind.allCases.map(\.rawValue))
        #expect(try adapter.stringList("$defs", "result", "properties", "outcome", "enum") == ["ok", "error"])
    }

    @Test("every sample decodes back to the value it was encoded from")
    func samplesRoundTrip() {
        for sample in ProtocolSamples.all {
            do {
                let decoded = try sample.message.decodedAgain()
                #expect(decoded == sample.message, "\(sample.name) decoded to \(decoded), line: \(sample.message.line)")
            } catch {
                Issue.record("\(sample.name) does not decode back: \(error); line: \(sample.message.line)")
            }
        }
    }

    @Test("hand-written lines with unknown fields, and null for absent optional fields, are valid and decode", .needsJSONSchema)
    func tolerantLinesAreValidAndDecode() throws {
        let lines = HandWritten.tolerant
        let verdicts = try ProtocolValidator.validate(lines.map { ($0.name, $0.direction, $0.line) })
        for line in lines {
            if let verdict = verdicts[line.name] {
                #expect(verdict.isValid, "\(line.name) is INVALID: \(verdict.message); line: \(line.line)")
            }
            #expect(line.decoderError == nil, "\(line.name) is rejected by the Swift decoder: \(line.decoderError ?? "")")
        }
    }

    @Test("messages the Swift decoders reject are rejected by the schemas as well", .needsJSONSchema)
    func decoderRejectsAreSchemaRejects() throws {
        let lines = HandWritten.broken
        let verdicts = try ProtocolValidator.validate(lines.map { ($0.name, $0.direction, $0.line) })
        for line in lines {
            #expect(line.decoderError != nil, "\(line.name) was expected to be rejected by the Swift decoder: \(line.line)")
            if let verdict = verdicts[line.name] {
                #expect(!verdict.isValid, "\(line.name) is VALID against \(line.direction.schemaFile): \(line.line)")
            }
        }
    }

    @Test("where the protocol document is stricter than the decoders, the schemas follow the document", .needsJSONSchema)
    func schemasFollowTheDocumentWhereStricter() throws {
        let lines = HandWritten.documentOnly
        let verdicts = try ProtocolValidator.validate(lines.map { ($0.name, $0.direction, $0.line) })
        for line in lines {
            // The decoders accept these (and the runner or the adapter falls back to a default); the document does
            // not allow them, so a porting team's adapter is told.
            #expect(line.decoderError == nil, "\(line.name) is now rejected by the Swift decoder too: \(line.decoderError ?? "")")
            if let verdict = verdicts[line.name] {
                #expect(!verdict.isValid, "\(line.name) is VALID against \(line.direction.schemaFile): \(line.line)")
            }
        }
    }
}

// MARK: - Samples

private enum Direction: String, CaseIterable, Sendable {
    case runner
    case adapter

    var schemaFile: String { "Specs/schema/protocol/\(rawValue)-message.schema.json" }
    var schema: URL { PackageRoot.url.appendingPathComponent(schemaFile) }
}

/// A message of either direction.
private enum ProtocolMessage: Sendable, Hashable {
    case runner(RunnerMessage)
    case adapter(AdapterMessage)

    var direction: Direction {
        switch self {
        case .runner: .runner
        case .adapter: .adapter
        }
    }

    var line: String {
        switch self {
        case .runner(let message): message.line
        case .adapter(let message): message.line
        }
    }

    /// The `type` the encoder wrote.
    var type: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object["type"] as? String
    }

    func decodedAgain() throws(ProtocolViolation) -> ProtocolMessage {
        switch self {
        case .runner: .runner(try RunnerMessage(line: line))
        case .adapter: .adapter(try AdapterMessage(line: line))
        }
    }
}

private struct Sample: Sendable {
    let name: String
    let message: ProtocolMessage

    var direction: Direction { message.direction }
}

/// A representative sample of every message kind, built from the Swift types.
private enum ProtocolSamples {
    static let all: [Sample] = runner + adapter

    static let runner: [Sample] = {
        var samples: [Sample] = [
            fromRunner("welcome", .welcome(seed: 42, clock: ClockReading(wall: 1_767_225_600, monotonic: 0))),
            fromRunner("welcome with the largest seed and a fractional clock",
                   .welcome(seed: .max, clock: ClockReading(wall: 1_767_225_600.25, monotonic: 12.5))),
            fromRunner("welcome in loopback mode", .welcome(
                seed: 7, clock: ClockReading(wall: 1_767_225_600, monotonic: 0), httpBaseURL: "http://127.0.0.1:41234")),
            fromRunner("welcome with the rfc6749 world profile", .welcome(
                seed: 7, clock: ClockReading(wall: 1_767_225_600, monotonic: 0), httpBaseURL: "http://127.0.0.1:41234",
                world: WorldDescription(
                    name: "rfc6749",
                    signIn: .init(path: "/oauth/token", encoding: "form", grantType: "password",
                                  fields: ["username": "username", "password": "password"]),
                    refresh: .init(path: "/oauth/token", encoding: "form", grantType: "refresh_token",
                                   fields: ["refreshToken": "refresh_token"]),
                    revocation: .init(path: "/oauth/revoke", encoding: "form", fields: ["token": "token"]),
                    profilePath: "/me", resourcePrefix: "/resources/", accountIDFrom: "profile", accountIDField: "sub"))),
            fromRunner("handshake error with a message", .error(ErrorInfo(
                code: "protocol-version", message: "this runner speaks protocol 1; the adapter sent 2", definite: true))),
            fromRunner("handshake error without a message, indefinite", .error(ErrorInfo(code: "busy", definite: false))),
        ]
        for kind in CommandKind.allCases {
            samples.append(fromRunner("command \(kind.rawValue)", .command(command(kind, id: "c\(samples.count)"))))
        }
        samples += [
            fromRunner("reply with a 200 response", .reply(id: "e7", .response(HTTPResponseMessage(
                status: 200, headers: ["content-type": "application/json"],
                body: ["resource": "inbox", "account_id": "acct-alice", "contentId": "content-1", "items": ["a1", "a2"]])))),
            fromRunner("reply with a 401 response, no headers", .reply(id: "e8", .response(HTTPResponseMessage(
                status: 401, body: ["error": "invalid_token"])))),
            fromRunner("reply with a response without a body", .reply(id: "e9", .response(HTTPResponseMessage(status: 204)))),
            fromRunner("reply with a stored value", .reply(id: "e10", .value("{\"access_token\":\"at#1\"}"))),
            fromRunner("reply with an absent value", .reply(id: "e11", .value(nil))),
            fromRunner("reply with the storage error locked",
                   .reply(id: "e12", .error(ErrorInfo(code: "locked", message: "the device is locked", definite: true)))),
            fromRunner("empty reply", .reply(id: "e13", .done)),
        ]
        for (index, failure) in [("timeout", false), ("offline", true), ("connectionLost", false)].enumerated() {
            samples.append(fromRunner("reply with the failure \(failure.0)", .reply(
                id: "f\(index)", .failure(ErrorInfo(code: failure.0, message: "no response", definite: failure.1)))))
        }
        samples += [
            fromRunner("reply with a failure without a message", .reply(id: "f9", .failure(ErrorInfo(code: "timeout", definite: false)))),
            fromRunner("clock", .clock(ClockReading(wall: 1_767_225_660, monotonic: 60))),
            fromRunner("clock with fractions", .clock(ClockReading(wall: 1_767_225_660.125, monotonic: 60.5))),
            fromRunner("barrier", .barrier(id: "b4")),
            fromRunner("barrier in loopback mode", .barrier(id: "b5", httpAnswered: 17)),
            fromRunner("reset between cases", .reset),
        ]
        return samples
    }()

    static let adapter: [Sample] = {
        let implementation = ImplementationInfo(name: "SessionKit", version: "0.1.0", language: "Swift", platform: "linux-x86_64")
        var samples: [Sample] = [
            fromAdapter("hello without an offline policy",
                    .hello(protocolVersion: 1, implementation: implementation, capabilities: ["background-refresh"])),
            fromAdapter("hello with an offline policy", .hello(
                protocolVersion: 1, implementation: implementation,
                capabilities: ["background-refresh", "offline-browsing"], offlineResources: ["news"])),
            fromAdapter("hello without capabilities", .hello(protocolVersion: 1, implementation: implementation, capabilities: [])),
            fromAdapter("hello of an instance the adapter forked", .hello(
                protocolVersion: 1, implementation: implementation, capabilities: ["reset", "fork"], instancePID: 4242)),
            fromAdapter("hello asking for loopback HTTP", .hello(
                protocolVersion: 1, implementation: implementation, capabilities: [], httpMode: .loopback)),
            fromAdapter("http caused by a command", .http(id: "e1", cause: "c1", HTTPRequestMessage(
                method: "GET", path: "/resources/inbox", headers: ["authorization": "Bearer at#1"]))),
            fromAdapter("http without a cause, with a JSON body", .http(id: "e6", cause: nil, HTTPRequestMessage(
                method: "POST", path: "/auth/refresh", body: ["refresh_token": "rt#1"]))),
        ]
        for operation in StorageOperation.allCases {
            switch operation {
            case .get, .delete:
                samples.append(fromAdapter("storage \(operation.rawValue)", .storage(
                    id: "s-\(operation.rawValue)", operation: operation, key: "session", value: nil, accessibility: nil)))
            case .set:
                for accessibility in Accessibility.allCases {
                    samples.append(fromAdapter("storage set \(accessibility.rawValue)", .storage(
                        id: "s-set-\(accessibility.rawValue)", operation: .set, key: "session",
                        value: "{\"access_token\":\"at#2\",\"refresh_token\":\"rt#2\"}", accessibility: accessibility)))
                }
            }
            let value: String? = operation == .set ? "acct-alice" : nil
            samples.append(fromAdapter("preferences \(operation.rawValue)", .preferences(
                id: "p-\(operation.rawValue)", operation: operation, key: "lastAccount", value: value)))
        }
        samples += [
            fromAdapter("sleep", .sleep(id: "e20", seconds: 30)),
            fromAdapter("sleep of a fraction", .sleep(id: "e21", seconds: 0.25)),
            fromAdapter("abandon of an http effect on a timeout", .abandon(id: "e7", reason: "timeout")),
            fromAdapter("abandon without a reason", .abandon(id: "e21", reason: nil)),
            fromAdapter("result ok with content", .result(CommandResult(id: "c3", content: ["resource": "inbox", "account": "alice"]))),
            fromAdapter("result ok without content", .result(CommandResult(id: "c4"))),
            fromAdapter("result error with a message", .result(CommandResult(
                id: "c5", error: ErrorInfo(code: "signedOut", message: "the session ended", definite: true)))),
            fromAdapter("result error without a message, indefinite",
                    .result(CommandResult(id: "c6", error: ErrorInfo(code: "timeout", definite: false)))),
            fromAdapter("launch transition with nulls", .transition(TransitionEvent(
                transition: nil, from: nil, to: "restoring", account: nil, generation: 1, reason: "launch"))),
            fromAdapter("transition", .transition(TransitionEvent(
                transition: "refresh-started", from: "authenticated", to: "refreshing", account: "alice", generation: 3,
                reason: "accessTokenRejected"))),
            fromAdapter("transition without a reason", .transition(TransitionEvent(
                transition: "sign-out", from: "authenticated", to: "signedOut", account: nil, generation: 4, reason: nil))),
        ]
        for kind in UIEvent.Kind.allCases {
            switch kind {
            case .content:
                samples.append(fromAdapter("ui content", .ui(UIEvent(
                    kind: .content, resource: "inbox", account: "alice", generation: 3, contentID: "content-7"))))
            case .signInPrompt:
                samples.append(fromAdapter("ui signInPrompt", .ui(UIEvent(kind: .signInPrompt))))
            }
        }
        samples += [
            fromAdapter("log", .log(level: "info", message: "refresh deferred: timeout")),
            fromAdapter("barrier", .barrier(id: "b4")),
            fromAdapter("barrier answer in loopback mode", .barrier(id: "b5", httpStarted: 17)),
        ]
        return samples
    }()

    /// A command as the runner sends it: with the fields its kind carries.
    private static func command(_ kind: CommandKind, id: String) -> AppCommand {
        switch kind {
        case .signIn, .switchAccount:
            AppCommand(id: id, kind: kind, email: "alice@example.com", password: "correct horse")
        case .request:
            AppCommand(id: id, kind: kind, resource: "inbox")
        case .launch, .signOut, .background, .foreground, .backgroundRefresh, .lock, .unlock, .online, .offline:
            AppCommand(id: id, kind: kind)
        }
    }

    private static func fromRunner(_ name: String, _ message: RunnerMessage) -> Sample {
        Sample(name: "runner \(name)", message: .runner(message))
    }

    private static func fromAdapter(_ name: String, _ message: AdapterMessage) -> Sample {
        Sample(name: "adapter \(name)", message: .adapter(message))
    }
}

/// A protocol line written by hand, and what the Swift decoder of its direction makes of it.
private struct HandWrittenLine: Sendable {
    let name: String
    let direction: Direction
    let line: String

    /// Nil when the decoder accepts the line.
    var decoderError: String? {
        do {
            switch direction {
            case .runner: _ = try RunnerMessage(line: line)
            case .adapter: _ = try AdapterMessage(line: line)
            }
            return nil
        } catch {
            return error.description
        }
    }
}

private enum HandWritten {
    /// Valid protocol the encoders never write: unknown fields, and null for optional fields.
    static let tolerant: [HandWrittenLine] = [
        runner("runner barrier with an unknown field", #"{"type":"barrier","id":"b1","x-note":{"any":[1,2]}}"#),
        runner("command with null optional fields", #"{"type":"command","id":"c1","command":"launch","email":null,"resource":null}"#),
        runner("reply whose response has no headers or body", #"{"type":"reply","id":"e1","response":{"status":204}}"#),
        runner("reply whose response has null headers", #"{"type":"reply","id":"e1","response":{"status":200,"headers":null,"body":null}}"#),
        runner("handshake error with null definite", #"{"type":"error","code":"protocol-version","definite":null}"#),
        adapter("adapter barrier with an unknown field", #"{"type":"barrier","id":"b1","elapsed":0.5}"#),
        adapter("hello without capabilities", #"{"type":"hello","protocol":1,"implementation":{"name":"x","version":"1","language":"Kotlin","platform":"jvm"}}"#),
        adapter("http with null cause and no request headers or body",
                #"{"type":"http","id":"e1","cause":null,"request":{"method":"GET","path":"/me"}}"#),
        adapter("transition without the optional keys", #"{"type":"transition","to":"restoring","generation":0}"#),
        adapter("ui with null optional fields", #"{"type":"ui","event":"signInPrompt","resource":null,"generation":null}"#),
        adapter("result ok with an error field that is ignored", #"{"type":"result","id":"c1","outcome":"ok","error":{"code":"x"}}"#),
        adapter("result error whose error has only a code", #"{"type":"result","id":"c1","outcome":"error","error":{"code":"offline"}}"#),
    ]

    /// Broken protocol: the Swift decoders reject each, and so must the schemas.
    static let broken: [HandWrittenLine] = [
        runner("command without an id", #"{"type":"command","command":"launch"}"#),
        runner("command of an unknown kind", #"{"type":"command","id":"c1","command":"reboot"}"#),
        runner("reply whose status is a string", #"{"type":"reply","id":"e1","response":{"status":"200","headers":{},"body":null}}"#),
        runner("reply whose headers are not strings", #"{"type":"reply","id":"e1","response":{"status":200,"headers":{"retry-after":5}}}"#),
        runner("reply without an id", #"{"type":"reply","value":"x"}"#),
        runner("welcome whose seed is a number", #"{"type":"welcome","protocol":1,"seed":42,"clock":{"wall":0,"monotonic":0}}"#),
        runner("welcome without a clock", #"{"type":"welcome","protocol":1,"seed":"42"}"#),
        runner("clock without monotonic", #"{"type":"clock","wall":1767225600}"#),
        runner("error without a code", #"{"type":"error","message":"no"}"#),
        runner("runner message of an unknown type", #"{"type":"ping","id":"p1"}"#),
        runner("runner message without a type", #"{"id":"b1"}"#),
        runner("runner message that is not an object", #"["barrier","b1"]"#),
        adapter("http without an id", #"{"type":"http","request":{"method":"GET","path":"/me","headers":{},"body":null}}"#),
        adapter("http without a request", #"{"type":"http","id":"e1"}"#),
        adapter("http request without a path", #"{"type":"http","id":"e1","request":{"method":"GET"}}"#),
        adapter("storage of an unknown op", #"{"type":"storage","id":"e1","op":"update","key":"session"}"#),
        adapter("storage of an unknown accessibility",
                #"{"type":"storage","id":"e1","op":"set","key":"session","value":"v","accessibility":"always"}"#),
        adapter("storage without a key", #"{"type":"storage","id":"e1","op":"get"}"#),
        adapter("preferences whose value is a number", #"{"type":"preferences","id":"e1","op":"set","key":"k","value":1}"#),
        adapter("sleep whose seconds is a string", #"{"type":"sleep","id":"e1","seconds":"30"}"#),
        adapter("abandon without an id", #"{"type":"abandon","reason":"timeout"}"#),
        adapter("abandon whose reason is a number", #"{"type":"abandon","id":"e7","reason":408}"#),
        adapter("result error without an error", #"{"type":"result","id":"c1","outcome":"error"}"#),
        adapter("result of an unknown outcome", #"{"type":"result","id":"c1","outcome":"failed"}"#),
        adapter("result without an id", #"{"type":"result","outcome":"ok"}"#),
        adapter("hello without an implementation", #"{"type":"hello","protocol":1,"capabilities":[]}"#),
        adapter("hello whose capabilities are not strings",
                #"{"type":"hello","protocol":1,"implementation":{"name":"x","version":"1","language":"Go","platform":"linux"},"capabilities":[1]}"#),
        adapter("hello asking for an unknown HTTP mode",
                #"{"type":"hello","protocol":1,"implementation":{"name":"x","version":"1","language":"Go","platform":"linux"},"http":"carrier-pigeon"}"#),
        adapter("hello whose pid is a string",
                #"{"type":"hello","protocol":1,"implementation":{"name":"x","version":"1","language":"Go","platform":"linux"},"capabilities":["fork"],"pid":"42"}"#),
        adapter("barrier answer whose httpStarted is negative", #"{"type":"barrier","id":"b1","httpStarted":-1}"#),
        adapter("hello whose offline policy has no resources",
                #"{"type":"hello","protocol":1,"implementation":{"name":"x","version":"1","language":"Go","platform":"linux"},"offlinePolicy":{}}"#),
        adapter("transition without a generation", #"{"type":"transition","transition":"sign-out","from":"authenticated","to":"signedOut"}"#),
        adapter("transition whose generation is a string", #"{"type":"transition","to":"restoring","generation":"1"}"#),
        adapter("ui of an unknown event", #"{"type":"ui","event":"toast"}"#),
        adapter("ui whose generation is fractional", #"{"type":"ui","event":"content","generation":1.5}"#),
        adapter("log without a message", #"{"type":"log","level":"info"}"#),
        adapter("adapter message of an unknown type", #"{"type":"command","id":"c1","command":"launch"}"#),
    ]

    /// Lines the decoders accept but docs/adapter-protocol.md does not allow; the schemas reject them.
    static let documentOnly: [HandWrittenLine] = [
        runner("signIn without a password", #"{"type":"command","id":"c1","command":"signIn","email":"alice@example.com"}"#),
        runner("switchAccount whose email is null",
               #"{"type":"command","id":"c1","command":"switchAccount","email":null,"password":"correct horse"}"#),
        runner("request without a resource", #"{"type":"command","id":"c1","command":"request"}"#),
        runner("reply with both a response and a value", #"{"type":"reply","id":"e1","response":{"status":200},"value":"x"}"#),
        runner("reply with both a failure and an error",
               #"{"type":"reply","id":"e1","failure":{"code":"timeout"},"error":{"code":"locked"}}"#),
        runner("reply with an unknown failure code", #"{"type":"reply","id":"e1","failure":{"code":"dnsError","definite":true}}"#),
        runner("welcome of protocol 2", #"{"type":"welcome","protocol":2,"seed":"1","clock":{"wall":0,"monotonic":0}}"#),
        adapter("storage set without an accessibility", #"{"type":"storage","id":"e1","op":"set","key":"session","value":"v"}"#),
        adapter("storage set without a value", #"{"type":"storage","id":"e1","op":"set","key":"session","accessibility":"whenUnlocked"}"#),
        adapter("preferences set without a value", #"{"type":"preferences","id":"e1","op":"set","key":"k"}"#),
        adapter("hello of protocol 2",
                #"{"type":"hello","protocol":2,"implementation":{"name":"x","version":"1","language":"Go","platform":"linux"}}"#),
    ]

    private static func runner(_ name: String, _ line: String) -> HandWrittenLine {
        HandWrittenLine(name: "runner \(name)", direction: .runner, line: line)
    }

    private static func adapter(_ name: String, _ line: String) -> HandWrittenLine {
        HandWrittenLine(name: "adapter \(name)", direction: .adapter, line: line)
    }
}

// MARK: - Support

private enum PackageRoot {
    /// The package root: this file is Tests/ConformanceProtocolTests/ProtocolSchemaTests.swift.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A schema file, read with Foundation to compare its enumerations with the Swift types.
private struct SchemaDocument {
    let file: String
    let root: [String: Any]

    init(_ direction: Direction) throws {
        file = direction.schemaFile
        let data = try Data(contentsOf: direction.schema)
        root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(file) is not a JSON object")
    }

    private func value(_ path: [String]) throws -> Any {
        var current: Any = root
        for key in path {
            current = try #require((current as? [String: Any])?[key], "\(file) has nothing at \(path.joined(separator: "/"))")
        }
        return current
    }

    func stringList(_ path: String...) throws -> [String] {
        try #require(try value(path) as? [String], "\(file): \(path.joined(separator: "/")) is not a list of strings")
    }

    /// The `$ref` of each entry of a list of subschemas.
    func refs(_ path: String...) throws -> [String] {
        let list = try #require(try value(path) as? [[String: Any]], "\(file): \(path.joined(separator: "/")) is not a list of schemas")
        return list.compactMap { $0["$ref"] as? String }
    }
}


private struct Verdict {
    let isValid: Bool
    let message: String
}

/// Writes lines to a temporary folder as JSON files and validates them with Specs/schema/validate_schema.py.
private enum ProtocolValidator {
    static let script = PackageRoot.url.appendingPathComponent("Specs/schema/validate_schema.py")

    /// Verdicts by name. Names must be unique; every line is checked against its direction's schema.
    static func validate(_ lines: [(name: String, direction: Direction, line: String)]) throws -> [String: Verdict] {
        try Python.requireJSONSchema(for: "the protocol schema tests")
        let names = lines.map(\.name)
        try #require(Set(names).count == names.count, "sample names must be unique: \(names)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("protocol-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var verdicts: [String: Verdict] = [:]
        for direction in Direction.allCases {
            let batch = lines.enumerated().filter { $0.element.direction == direction }
            guard !batch.isEmpty else { continue }
            var pending: [String: String] = [:]
            for (index, line) in batch {
                let file = folder.appendingPathComponent("\(direction.rawValue)-\(index).json")
                try Data(line.line.utf8).write(to: file)
                pending[file.path] = line.name
            }
            let output = try Python.run([script.path, direction.schema.path] + pending.keys.sorted())
            try #require(output.status == 0, """
                validate_schema.py failed on \(direction.schemaFile) (exit \(output.status)):
                \(output.stderr)
                """)
            for line in output.stdout.split(separator: "\n").map(String.init) {
                let path: String
                let verdict: Verdict
                if line.hasPrefix("OK ") {
                    path = String(line.dropFirst(3))
                    verdict = Verdict(isValid: true, message: "")
                } else if line.hasPrefix("INVALID "), let colon = line.range(of: ".json: ") {
                    path = String(line[line.index(line.startIndex, offsetBy: 8)..<colon.lowerBound]) + ".json"
                    verdict = Verdict(isValid: false, message: String(line[colon.upperBound...]))
                } else {
                    Issue.record("unexpected line from validate_schema.py: \(line)")
                    continue
                }
                guard let name = pending.removeValue(forKey: path) else {
                    Issue.record("validate_schema.py reported an unknown instance: \(line)")
                    continue
                }
                verdicts[name] = verdict
            }
            for name in pending.values.sorted() {
                Issue.record("validate_schema.py said nothing about \(name) against \(direction.schemaFile)")
            }
        }
        return verdicts
    }


}
