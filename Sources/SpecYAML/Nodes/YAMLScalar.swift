/// A scalar's text and how it was written; plain scalars resolve to null, booleans and numbers
/// by the YAML 1.2 core schema, quoted and block scalars are always strings.
public struct YAMLScalar: Sendable, Hashable {
    public enum Style: Sendable, Hashable {
        case plain
        case singleQuoted
        case doubleQuoted
        case literal
        case folded
    }

    /// What a scalar resolves to.
    public enum Resolved: Sendable, Hashable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
    }

    public let text: String
    public let style: Style

    public init(_ text: String, style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public var resolved: Resolved {
        guard style == .plain else { return .string(text) }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = Self.integer(text) { return .int(integer) }
        if let number = Self.double(text) { return .double(number) }
        return .string(text)
    }

    public var kindDescription: String {
        switch resolved {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        }
    }

    private static func integer(_ text: String) -> Int? {
        let body = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        guard !body.isEmpty, body.allSatisfy(\.isASCII), body.allSatisfy(\.isNumber) else { return nil }
        return Int(text)
    }

    private static func double(_ text: String) -> Double? {
        let allowed = Set("0123456789+-.eE")
        guard text.contains(where: \.isNumber), text.allSatisfy({ allowed.contains($0) }) else { return nil }
        return Double(text)
    }
}
