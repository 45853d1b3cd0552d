/// JSON text for a node tree, so JSON Schema tools can validate what the loader read.
extension YAMLNode {
    public func jsonText() -> String {
        var output = ""
        write(into: &output)
        return output
    }

    private func write(into output: inout String) {
        switch content {
        case .mapping(let entries):
            output += "{"
            for (index, entry) in entries.enumerated() {
                if index > 0 { output += "," }
                output += Self.jsonString(entry.key) + ":"
                entry.value.write(into: &output)
            }
            output += "}"
        case .sequence(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(into: &output)
            }
            output += "]"
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: output += "null"
            case .bool(let value): output += value ? "true" : "false"
            case .int(let value): output += String(value)
            case .double(let value): output += value.isFinite ? String(value) : Self.jsonString(scalar.text)
            case .string(let value): output += Self.jsonString(value)
            }
        }
    }

    static func jsonString(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }
}
