public import JSONCore

/// JSON for a node tree, so JSON Schema tools can validate what the loader read.
extension YAMLNode {
    public var jsonValue: JSONValue {
        switch content {
        case .mapping(let entries):
            return .object(Dictionary(entries.map { ($0.key, $0.value.jsonValue) }, uniquingKeysWith: { first, _ in first }))
        case .sequence(let items):
            return .array(items.map(\.jsonValue))
        case .scalar(let scalar):
            switch scalar.resolved {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .double(let value): return value.isFinite ? .double(value) : .string(scalar.text)
            case .string(let value): return .string(value)
            }
        }
    }

    /// Compact JSON text with sorted keys.
    public func jsonText() -> String { jsonValue.jsonText }
}
