/// Colours of the statuses in the HTML report: a strong colour for strokes and text, a pale one for fills.
/// Colour is never the only cue: every coloured thing also says its status in words or in a tooltip.
enum StatusPalette {
    static func stroke(_ status: RequirementReportStatus) -> String {
        switch status {
        case .pass: "#1a7f37"
        case .fail: "#cf222e"
        case .warn: "#9a6700"
        case .error: "#8250df"
        case .known: "#bc4c00"
        case .skipped: "#57606a"
        case .untested, .notTestable: "#8c959f"
        }
    }

    static func fill(_ status: RequirementReportStatus) -> String {
        switch status {
        case .pass: "#dafbe1"
        case .fail: "#ffebe9"
        case .warn: "#fff8c5"
        case .error: "#fbefff"
        case .known: "#fff1e5"
        case .skipped: "#eaeef2"
        case .untested, .notTestable: "#f6f8fa"
        }
    }

    /// A case's colours: a requirement's for the same word, and its own (teal) for `inconclusive`, which
    /// is neither a failure nor a pass.
    static func stroke(_ status: CaseReportStatus) -> String {
        status == .inconclusive ? "#1b7c83" : stroke(status.asRequirementStatus)
    }

    static func fill(_ status: CaseReportStatus) -> String {
        status == .inconclusive ? "#d8f3f0" : fill(status.asRequirementStatus)
    }

    /// Dashed strokes for what was not checked.
    static func dashed(_ status: RequirementReportStatus) -> Bool {
        status == .untested || status == .skipped || status == .notTestable
    }
}
