/// The version of the contract a spec folder states (`specVersion: "MAJOR.MINOR"` in `requirements.yaml`):
/// what a certified client was certified against. docs/spec-format.md says what raises each part, and
/// CHANGELOG.md lists what changed in each version.
public struct SpecVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Reads `MAJOR.MINOR`: two decimal numbers without a sign or leading zeros, for example `3.0` or `2.10`.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Self.number(parts[0]), let minor = Self.number(parts[1]) else { return nil }
        self.init(major: major, minor: minor)
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              text == "0" || !text.hasPrefix("0") else { return nil }
        return Int(text)
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: SpecVersion, rhs: SpecVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
