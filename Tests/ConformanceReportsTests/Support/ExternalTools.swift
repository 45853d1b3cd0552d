import Foundation
import Testing

/// Optional programs some report tests check their output with. When one is missing the test is skipped
/// and swift-testing prints the reason, so `swift test` passes with only the toolchain and libyaml; with
/// SESSION_CONFORMANCE_REQUIRE_TOOLS=1 (set by .ci/run after installing them) the test runs and fails.
enum ExternalTool: String, CaseIterable, Sendable {
    case xmllint, chromium, perl, jsonschema, markdownIt

    var install: String {
        switch self {
        case .xmllint: "xmllint (apt-get install libxml2-utils; macOS ships it)"
        case .chromium: "headless Chromium (apt-get install chromium; macOS: Google Chrome or Chromium)"
        case .perl: "perl with TAP::Parser (apt-get install perl; macOS ships it)"
        case .jsonschema: "python3 with jsonschema (pip install jsonschema, or apt-get install python3-jsonschema)"
        case .markdownIt: "python3 with markdown-it-py and linkify-it-py (pip install markdown-it-py linkify-it-py)"
        }
    }

    var isAvailable: Bool {
        switch self {
        case .xmllint: Program.available("xmllint") != nil
        case .chromium: Chromium.executable != nil
        case .perl: Program.available("perl") != nil
        case .jsonschema: Self.pythonHas("jsonschema")
        case .markdownIt: Self.pythonHas("markdown_it, linkify_it")
        }
    }

    private static func pythonHas(_ modules: String) -> Bool {
        guard let python = Program.available("python3") else { return false }
        return (try? Program.run(python, ["-c", "import \(modules)"]).status) == 0
    }

    static var required: Bool { ProcessInfo.processInfo.environment["SESSION_CONFORMANCE_REQUIRE_TOOLS"] == "1" }
}

extension ExternalTool {
    /// The skip message for a test that needs `tools`: it names only the ones `isAvailable` says are missing,
    /// or nil when none is.
    static func skipReason(needing tools: [ExternalTool], isAvailable: (ExternalTool) -> Bool = \.isAvailable) -> String? {
        let missing = tools.filter { !isAvailable($0) }
        guard !missing.isEmpty else { return nil }
        return "skipped: needs \(missing.map(\.install).joined(separator: " and ")); "
            + "SESSION_CONFORMANCE_REQUIRE_TOOLS=1 makes this a failure"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when every tool is installed, or when SESSION_CONFORMANCE_REQUIRE_TOOLS=1; skips it
    /// otherwise, naming the tools that are missing and how to install them.
    static func needs(_ tools: ExternalTool...) -> Self {
        let reason = ExternalTool.skipReason(needing: tools)
        return .enabled(if: ExternalTool.required || reason == nil, Comment(rawValue: reason ?? ""))
    }
}
