import Foundation

/// What every writer says the same way about a failure: a grouped finding's words, and which requirements
/// show the design's own words.
public enum FailureText {
    /// The first occurrence's message, and how many more like it the group stands for.
    public static func message(_ message: String, occurrences: Int) -> String {
        occurrences > 1 ? "\(message) (and \(occurrences - 1) more like it)" : message
    }

    /// Statuses whose requirement is shown with its statement and the design's quotes: every failure, a
    /// warning or an expected failure.
    public static func showsDesignWords(_ status: RequirementReportStatus) -> Bool {
        status == .fail || status == .warn || status == .known
    }

    /// A quote on one line (quotes may span lines in the catalogue), for line-based formats.
    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}

extension Evidence {
    /// The message with the group's count.
    public var fullMessage: String { FailureText.message(message, occurrences: occurrences) }
}

extension FindingReport {
    /// The message with the group's count.
    public var fullMessage: String { FailureText.message(message, occurrences: occurrences) }
}

/// A requirement's evidence with identical findings across cases collapsed: the first occurrence, and every
/// case it shows up in (identical as `RootCauseAnalysis` reads it: the same check and message, numbers and
/// the case's ID aside).
public struct EvidenceGroup: Sendable, Equatable {
    public let first: Evidence
    public var cases: [String]

    public static func groups(_ requirement: RequirementReport, report: ComplianceReport) -> [EvidenceGroup] {
        var groups: [EvidenceGroup] = []
        var index: [String: Int] = [:]
        for evidence in requirement.evidence {
            let key = evidence.check + "\u{1}" + RootCauseAnalysis.normalise(evidence.message, caseID: evidence.caseID)
            if let position = index[key] {
                if groups[position].cases.last != evidence.caseID { groups[position].cases.append(evidence.caseID) }
            } else {
                index[key] = groups.count
                groups.append(EvidenceGroup(first: evidence, cases: [evidence.caseID]))
            }
        }
        return groups
    }
}
