/// A YAML node with the place it was written, so every later check can point at the source.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLEntry])
    }

    public let content: Content
    public let location: SourceLocation

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: [YAMLEntry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// What the node is, in words for an error message: "a mapping", "a list", "a string", "null".
    public var kindDescription: String {
        switch content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): scalar.kindDescription
        }
    }
}

/// One `key: value` pair of a mapping. Keys are always scalars in spec files.
public struct YAMLEntry: Sendable {
    public let key: String
    public let keyLocation: SourceLocation
    public let value: YAMLNode

    public init(key: String, keyLocation: SourceLocation, value: YAMLNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}
