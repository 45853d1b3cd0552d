import Foundation
import SpecModel

/// Which cases a run plays: `--filter` globs, `--requirement` IDs, and the cases a previous report failed.
public enum CaseSelection {
    /// The glob a `--filter` (or `-k`) text stands for: a text with a `*` is a glob as it is; any other text
    /// matches anywhere in the ID (`refresh` is `*refresh*`), as pytest's `-k` does.
    public static func filterPattern(_ text: String) -> String {
        text.contains("*") ? text : "*" + text + "*"
    }

    /// Whether a case ID matches a filter, ignoring case: `*` stands for any run of characters, anywhere in
    /// the pattern (`*refresh*`, `launch-*`, `*-401s`); without `*` the ID must be equal.
    public static func matches(pattern: String, id: String) -> Bool {
        let pattern = pattern.lowercased(), id = id.lowercased()
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == id }
        guard id.hasPrefix(parts[0]), id.dropFirst(parts[0].count).hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = Substring(id.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let found = rest.range(of: middle) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    /// Whether a filter selects a case: its ID, or for a trigger variant (`base[expiry]`) also the ID as
    /// written, so `--case base` plays every variant.
    public static func matches(pattern: String, case candidate: AcceptanceCase) -> Bool {
        matches(pattern: pattern, id: candidate.id) || (candidate.baseID != candidate.id && matches(pattern: pattern, id: candidate.baseID))
    }

    /// The cases that name a requirement, in the spec's order.
    public static func covering(_ requirement: String, in cases: [AcceptanceCase]) -> [AcceptanceCase] {
        cases.filter { $0.requirements.contains { $0.value == requirement } }
    }

    /// The IDs of the oracles that check a requirement on every trace.
    public static func oracles(checking requirement: String) -> [String] {
        Oracles.all.filter { $0.requirements.contains(requirement) }.map(\.id)
    }
}
