import SpecModel

/// `Plural.count(1, "case")` in every file of the module, whether or not it imports SpecModel.
typealias Plural = SpecModel.Plural

/// What the gate reasons after the first one are, counted by kind, for the summary line
/// (`FAILED: REASON (and 32 more: 32 MUST requirements untested)`). The kinds are the reasons `deriveGate`
/// writes; any other reason counts as "other reason".
enum GateReasonCounts {
    static func more(_ reasons: ArraySlice<String>) -> String {
        guard !reasons.isEmpty else { return "" }
        // (singular, plural, test) in the order they are listed.
        let kinds: [(String, String, (String) -> Bool)] = [
            ("adapter start-up failure", "adapter start-up failures", { $0.hasPrefix("the adapter could not be started") }),
            ("case errored", "cases errored", { $0.hasPrefix("case ") && $0.contains(" errored") }),
            ("MUST requirement failed", "MUST requirements failed",
             { $0.hasPrefix("MUST requirement ") && $0.hasSuffix(" failed") }),
            ("MUST requirement not checked (a case errored)", "MUST requirements not checked (a case errored)",
             { $0.hasPrefix("MUST requirement ") && $0.contains(" could not be checked") }),
            ("MUST requirement untested", "MUST requirements untested",
             { $0.hasPrefix("MUST requirement ") && $0.contains(" is untested") }),
            ("expected failure now passing", "expected failures now passing", { $0.hasPrefix("expected failure ") }),
        ]
        var counts = Array(repeating: 0, count: kinds.count + 1)
        for reason in reasons {
            counts[kinds.firstIndex { $0.2(reason) } ?? kinds.count] += 1
        }
        let names = kinds.map { ($0.0, $0.1) } + [("other reason", "other reasons")]
        let parts = zip(counts, names).filter { $0.0 > 0 }.map { count, name in "\(count) \(count == 1 ? name.0 : name.1)" }
        return " (and \(reasons.count) more: \(parts.joined(separator: ", ")))"
    }
}
