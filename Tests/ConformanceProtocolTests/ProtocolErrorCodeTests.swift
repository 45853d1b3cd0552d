import ConformanceProtocol
import Foundation
import Testing

/// The error codes of protocol v1 have one definition, `ProtocolErrorCode`; the "Errors" table of
/// docs/adapter-protocol.md and the schemas in Specs/schema/protocol/ must list exactly the same.
@Suite("Protocol error codes")
struct ProtocolErrorCodeTests {
    struct Row: Hashable, CustomStringConvertible {
        let code: String
        let carrier: ProtocolErrorCode.Carrier
        let definite: Bool

        var description: String { "\(code) in \(carrier.rawValue), definite \(definite)" }
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// How the document's "carried in" column names each carrier.
    static let carrierNames: [String: ProtocolErrorCode.Carrier] = [
        "reply.failure": .httpFailure, "reply.error": .storageError, "error": .handshakeError, "result.error": .commandResult,
    ]

    static var swiftRows: Set<Row> {
        Set(ProtocolErrorCode.allCases.map { Row(code: $0.rawValue, carrier: $0.carrier, definite: $0.definite) })
    }

    /// The rows of the table in the document's "## Errors" section.
    static func documentRows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/adapter-protocol.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Errors\n").dropFirst().first,
                                   "docs/adapter-protocol.md has no '## Errors' section")
        let body = section.components(separatedBy: "\n## ").first ?? section
        return try body.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count >= 3, "a row of the Errors table with too few cells: \(line)")
            let code = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let carrierName = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let carrier = try #require(carrierNames[carrierName], "unknown 'carried in' \(cells[1]) in: \(line)")
            try #require(["true", "false"].contains(cells[2]), "'definite' is not true or false in: \(line)")
            let definite = cells[2] == "true"
            return Row(code: code, carrier: carrier, definite: definite)
        }
    }

    static func schema(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent("Specs/schema/protocol/\(name)-message.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func strings(_ object: Any, _ path: [Any]) throws -> [String] {
        var current: Any = object
        for key in path {
            if let key = key as? String {
                current = try #require((current as? [String: Any])?[key], "nothing at \(path) (\(key))")
            } else if let index = key as? Int {
                let list = try #require(current as? [Any], "not a list at \(path)")
                try #require(list.indices.contains(index), "no entry \(index) at \(path)")
                current = list[index]
            }
        }
        return try #require(current as? [String], "not a list of strings at \(path)")
    }

    @Test("the document's Errors table lists exactly the codes of ProtocolErrorCode, with their carrier and definite")
    func documentAgreesWithSwift() throws {
        let rows = try Self.documentRows()
        #expect(rows.count == Set(rows).count, "a code is listed twice: \(rows)")
        #expect(Set(rows) == Self.swiftRows, """
            only in the document: \(Set(rows).subtracting(Self.swiftRows).sorted { $0.code < $1.code })
            only in ProtocolErrorCode: \(Self.swiftRows.subtracting(Set(rows)).sorted { $0.code < $1.code })
            """)
    }

    @Test("the schemas list exactly the codes of ProtocolErrorCode, each where it travels")
    func schemasAgreeWithSwift() throws {
        let runner = try Self.schema("runner")
        let adapter = try Self.schema("adapter")
        let listed: [ProtocolErrorCode.Carrier: [String]] = [
            .httpFailure: try Self.strings(runner, ["$defs", "reply", "properties", "failure", "allOf", 1, "properties", "code", "enum"]),
            .storageError: try Self.strings(runner, ["$defs", "reply", "properties", "error", "allOf", 1, "properties", "code", "enum"]),
            .handshakeError: try Self.strings(runner, ["$defs", "error", "properties", "code", "examples"]),
            .commandResult: try Self.strings(adapter, ["$defs", "result", "properties", "error", "allOf", 1, "properties", "code", "examples"]),
        ]
        for carrier in ProtocolErrorCode.Carrier.allCases {
            let expected = ProtocolErrorCode.allCases.filter { $0.carrier == carrier }.map(\.rawValue)
            #expect(listed[carrier] == expected, "\(carrier.rawValue): the schema lists \(listed[carrier] ?? []), ProtocolErrorCode \(expected)")
        }
    }

    @Test("the result error's description in the schema names no code the protocol does not define")
    func schemaDescriptionNamesOnlyDefinedCodes() throws {
        let adapter = try Self.schema("adapter")
        let error = try #require(((((adapter["$defs"] as? [String: Any])?["result"] as? [String: Any])?["properties"]
            as? [String: Any])?["error"] as? [String: Any])?["description"] as? String)
        // The codes the reference happens to use are examples of a client's own codes, not protocol.
        for code in ["invalidCredentials", "signedOut", "sessionExpired", "sessionEnded", "notAuthenticated"] {
            #expect(!error.contains(code), "the schema's result.error description names '\(code)' as if the protocol defined it")
        }
        #expect(error.contains("invalidInput"))
    }
}
