/// Compact JSON text with sorted object keys: the same value always gives the same bytes.
extension JSONValue {
    public var jsonText: String {
        var output = ""
        write(into: &output)
        return output
    }

    /// The same text laid out for people: two-space indentation, one member or item per line, sorted keys,
    /// a final newline. An array or object that holds only scalars (or nothing) stays on one line, so lists
    /// of records read as one record a line.
    public var prettyJSONText: String {
        var output = ""
        writePretty(into: &output, indent: "")
        return output + "\n"
    }

    private func writePretty(into output: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .array(let items) where !items.allSatisfy(\.isFlat):
            output += "[\n"
            for (index, item) in items.enumerated() {
                output += inner
                item.writePretty(into: &output, indent: inner)
                output += index == items.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        case .object(let object) where !object.values.allSatisfy(\.isFlat):
            output += "{\n"
            let keys = object.keys.sorted()
            for (index, key) in keys.enumerated() {
                output += inner + JSONValue.quoted(key) + ": "
                object[key]!.writePretty(into: &output, indent: inner)
                output += index == keys.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        default:
            write(into: &output)
        }
    }

    /// A scalar, or an empty array or object.
    private var isFlat: Bool {
        switch self {
        case .array(let items): items.isEmpty
        case .object(let object): object.isEmpty
        default: true
        }
    }

    private func write(into output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            if value.isFinite {
                output += value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
            } else {
                output += "null"
            }
        case .string(let value): JSONValue.writeQuoted(value, into: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(into: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, member) in object.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeQuoted(member.key, into: &output)
                output += ":"
                member.value.write(into: &output)
            }
            output += "}"
        }
    }

    /// A JSON string literal for `text`, escaping quotes, backslashes and control characters.
    public static func quoted(_ text: String) -> String {
        var output = ""
        writeQuoted(text, into: &output)
        return output
    }

    private static func writeQuoted(_ text: String, into output: inout String) {
        output += "\""
        defer { output += "\"" }
        // Most strings need no escape: copy them whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xE2 }) {
            output += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
    }
}
