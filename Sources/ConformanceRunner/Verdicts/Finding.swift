/// One violated requirement, with the evidence: the case, the step, and the trace events that show it.
public struct Finding: Sendable, Hashable {
    /// The requirement IDs the violation is charged to.
    public let requirements: [String]
    /// The oracle or expectation that found it, for example `oracle:single-refresh-in-flight` or `expect`.
    public let check: String
    /// The first occurrence's words, verbatim.
    public let message: String
    /// Trace event numbers; for a group, those of its first occurrences (see `grouped(_:)`).
    public let evidence: [Int]
    /// The 0-based case step during which the first evidence happened.
    public let step: Int
    /// How many identical findings this one stands for (1 unless grouped).
    public let occurrences: Int
    /// For an `expect` step's finding: what the step needed and did not get, as data.
    public let unmet: UnmetPrecondition?

    public init(requirements: [String], check: String, message: String, evidence: [Int], step: Int, occurrences: Int = 1,
                unmet: UnmetPrecondition? = nil) {
        self.requirements = requirements
        self.check = check
        self.message = message
        self.evidence = evidence
        self.step = step
        self.occurrences = occurrences
        self.unmet = unmet
    }

    /// How many trace events a group keeps as evidence, besides all of its first occurrence's.
    public static let groupEvidenceLimit = 3

    /// Identical findings collapsed into one, in the order of their first occurrence. Identical: the same
    /// check, charged to the same requirements, with the same message once numbers (event numbers, token
    /// handles such as `rt#12`, counts) are masked. A group keeps its first occurrence's message and step,
    /// the count, and the evidence of its first occurrences: a client that refreshes on each of 1,000
    /// concurrent 401s gives one finding with 999 occurrences, not 999 findings.
    public static func grouped(_ findings: [Finding]) -> [Finding] {
        var order: [GroupKey] = []
        var groups: [GroupKey: [Finding]] = [:]
        for finding in findings {
            let key = GroupKey(check: finding.check, requirements: finding.requirements, shape: masked(finding.message))
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(finding)
        }
        return order.map { key in
            let members = groups[key]!
            let first = members[0]
            guard members.count > 1 else { return first }
            // Only as many as are kept are collected (a group of 200,000 members costs one pass, not a quadratic search).
            let limit = max(groupEvidenceLimit, first.evidence.count)
            var kept: [Int] = []
            var seen: Set<Int> = []
            for member in members {
                for number in member.evidence where kept.count < limit && seen.insert(number).inserted {
                    kept.append(number)
                }
                if kept.count == limit { break }
            }
            return Finding(requirements: first.requirements, check: first.check, message: first.message, evidence: kept,
                           step: first.step, occurrences: members.reduce(0) { $0 + $1.occurrences }, unmet: first.unmet)
        }
    }

    /// The message with every run of digits replaced by `#`: what stays when numbers and handles are ignored.
    public static func masked(_ message: String) -> String {
        var output = ""
        var inNumber = false
        for character in message {
            if character.isASCII && character.isNumber {
                if !inNumber { output.append("#") }
                inNumber = true
            } else {
                output.append(character)
                inNumber = false
            }
        }
        return output
    }

    private struct GroupKey: Hashable {
        let check: String
        let requirements: [String]
        let shape: String
    }
}
