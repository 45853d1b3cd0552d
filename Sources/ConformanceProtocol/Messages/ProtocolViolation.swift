import JSONCore

/// A message that is not valid protocol: not JSON, an unknown type, a missing or mistyped field.
public struct ProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notJSON
        case unknownType
        case missingField
        case wrongType
        case invalidValue
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// Reads the fields of one message object with precise errors.
struct FieldReader {
    let object: [String: JSONValue]
    let what: String

    init(_ value: JSONValue, what: String) throws(ProtocolViolation) {
        guard let object = value.object else {
            throw ProtocolViolation(.wrongType, "\(what) must be a JSON object, found \(value.kindDescription)")
        }
        self.object = object
        self.what = what
    }

    func has(_ key: String) -> Bool { object[key] != nil }

    func string(_ key: String) throws(ProtocolViolation) -> String {
        guard let value = object[key] else { throw ProtocolViolation(.missingField, "\(what) has no '\(key)'") }
        guard let text = value.string else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be a string, found \(value.kindDescription)")
        }
        return text
    }

    func optionalString(_ key: String) throws(ProtocolViolation) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.string else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be a string, found \(value.kindDescription)")
        }
        return text
    }

    func int(_ key: String) throws(ProtocolViolation) -> Int {
        guard let value = object[key] else { throw ProtocolViolation(.missingField, "\(what) has no '\(key)'") }
        guard let number = value.int else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be an integer, found \(value.kindDescription)")
        }
        return number
    }

    func optionalInt(_ key: String) throws(ProtocolViolation) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        return try int(key)
    }

    func double(_ key: String) throws(ProtocolViolation) -> Double {
        guard let value = object[key] else { throw ProtocolViolation(.missingField, "\(what) has no '\(key)'") }
        guard let number = value.double else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be a number, found \(value.kindDescription)")
        }
        return number
    }

    func bool(_ key: String, default fallback: Bool) throws(ProtocolViolation) -> Bool {
        guard let value = object[key], !value.isNull else { return fallback }
        guard let flag = value.bool else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be a boolean, found \(value.kindDescription)")
        }
        return flag
    }

    func value(_ key: String) throws(ProtocolViolation) -> JSONValue {
        guard let value = object[key] else { throw ProtocolViolation(.missingField, "\(what) has no '\(key)'") }
        return value
    }

    func stringMap(_ key: String) throws(ProtocolViolation) -> [String: String] {
        guard let value = object[key], !value.isNull else { return [:] }
        guard let map = value.object else {
            throw ProtocolViolation(.wrongType, "'\(key)' of \(what) must be an object, found \(value.kindDescription)")
        }
        var result: [String: String] = [:]
        for (name, field) in map {
            guard let text = field.string else {
                throw ProtocolViolation(.wrongType, "'\(key).\(name)' of \(what) must be a string")
            }
            result[name] = text
        }
        return result
    }

    func choice<T: RawRepresentable<String> & CaseIterable>(_ key: String, as type: T.Type) throws(ProtocolViolation) -> T {
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolViolation(.invalidValue, "'\(key)' of \(what) is '\(text)', not one of \(names)")
        }
        return value
    }
}
