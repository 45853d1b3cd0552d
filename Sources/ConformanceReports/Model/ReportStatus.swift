import ConformanceRunner

/// A requirement's status in a report. Besides the runner's statuses, `known`: it failed, and an
/// expected-failures file said it would.
public enum RequirementReportStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pass
    case fail
    /// A SHOULD or MAY that failed.
    case warn
    /// Its capability is not declared, or every case covering it was skipped.
    case skipped
    /// A case covering it could not run to the end: the adapter crashed, hung or broke the protocol.
    case error
    /// No case covers it (in this run), or no covering case was conclusive: each was inconclusive or skipped.
    case untested
    /// An informative or server statement: no client can pass or fail it alone.
    case notTestable
    /// It failed, as the expected-failures file says it does.
    case known

    /// Worst first, for colouring something by the statuses of what it depends on.
    static let severity: [RequirementReportStatus] = [.error, .fail, .known, .warn, .pass, .skipped, .untested, .notTestable]

    /// The worst of some statuses; `untested` when there are none.
    static func worst(_ statuses: some Sequence<RequirementReportStatus>) -> RequirementReportStatus {
        let present = Set(statuses)
        return severity.first { present.contains($0) && $0 != .notTestable } ?? .untested
    }

    init(_ status: RequirementStatus) {
        switch status {
        case .pass: self = .pass
        case .fail: self = .fail
        case .warn: self = .warn
        case .skipped: self = .skipped
        case .error: self = .error
        case .untested: self = .untested
        case .notTestable: self = .notTestable
        }
    }

    /// Whether a requirement with this status failed, expected or not.
    public var isFailing: Bool { self == .fail || self == .warn || self == .known || self == .error }
}

/// A case's status in a report: the runner's, or `known` for a failure the expected-failures file lists.
public enum CaseReportStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pass
    case fail
    case skipped
    case error
    case known
    /// A precondition did not hold: the case says nothing of its requirements.
    case inconclusive

    /// What the runner observed: a `known` case failed.
    var asCaseStatus: CaseStatus {
        switch self {
        case .pass: .pass
        case .fail, .known: .fail
        case .skipped: .skipped
        case .error: .error
        case .inconclusive: .inconclusive
        }
    }

    var asRequirementStatus: RequirementReportStatus {
        switch self {
        case .pass: .pass
        case .fail: .fail
        case .skipped: .skipped
        case .error: .error
        case .known: .known
        case .inconclusive: .untested
        }
    }
}
