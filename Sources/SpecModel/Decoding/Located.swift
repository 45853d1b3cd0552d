public import SpecYAML

/// A value read from a spec file together with where it was written.
public struct Located<Value: Sendable>: Sendable {
    public let value: Value
    public let location: SourceLocation

    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
