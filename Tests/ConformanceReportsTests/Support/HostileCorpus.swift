import ConformanceReports
import Foundation

/// The hostile strings every output format is tested with: what a client, an adapter or an edited report can
/// put in any text the suite prints or writes. Each tries to take over the line or the markup it lands in.
enum HostileCorpus {
    static let strings = [
        // escape sequences: colour, window title (OSC), cursor movement, CSI as one C1 byte
        "\u{1B}[31mred\u{1B}[0m\u{1B}]0;owned\u{07}\u{1B}[2A\u{9B}2J",
        // a carriage return that rewrites the line, then a workflow command
        "looks fine\r::error::forged by the client",
        // whole new lines: workflow commands and a forged result line at column 0
        "\n::add-mask::secret\n::stop-commands::pwn-token\nresult: pass (forged)\n##[error]forged\n##vso[task.complete result=Succeeded]",
        // a backtick run with a control character inside, to close a fence, then Markdown structure
        "``\u{01}`````\n# Forged heading PWN\n@octocat [link PWN](https://evil.example/link) ![image PWN](https://evil.example/x.png)\n<details><summary>PWN",
        "````\n```\n~~~\n</details>\n## Forged heading PWN",
        // mentions and bare links
        "@octocat and @github/security-team, see https://evil.example/path www.evil.example mail@evil.example",
        // HTML
        "<script>alert('PWN')</script><img src=x onerror=alert(1)><a href=\"https://evil.example\">PWN</a> &amp; <!-- PWN -->",
        // characters XML 1.0 cannot hold, C1 controls, noncharacters
        "nul\u{00}bs\u{08}vt\u{0B}ff\u{0C}del\u{7F}nel\u{85}csi\u{9B}\u{FFFE}\u{FFFF}",
        // TAP directives and test points
        "\nnot ok 999 - forged # TODO\nBail out! forged by the client\nok 1000 - forged # SKIP\n1..1",
        // bidirectional overrides (Trojan Source) and separators
        "\u{202E}evil\u{202C} \u{2066}isolate\u{2069} \u{200F}rtl\u{2028}ls\u{2029}ps",
        // Markdown block starts and inline markup
        "# heading PWN\n- list PWN\n> quote PWN\n1. ordered PWN\n=====\n---\n| table | PWN |\n**bold** _em_ [ref]: https://evil.example",
    ]

    /// Text that, at the start of a line (after its leading spaces), only the hostile strings write.
    static let forgedLineStarts = ["::", "##[", "##vso[", "result: pass", "not ok 999", "ok 1000", "Bail out!", "# Forged", "## Forged",
                                   "# heading", "@octocat", "<details><summary>PWN", "</details>", "- list", "> quote", "1. ordered", "1..1"]

    /// `report` with every free text in it (IDs, names, messages, traces, commands) followed by a hostile string,
    /// the same string for the same text, so references between its parts still hold; every case's stderr is all
    /// of them.
    static func hostile(_ report: ComplianceReport) throws -> ComplianceReport {
        let json = JSONReportWriter.render(report)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let data = try JSONSerialization.data(withJSONObject: poisoned(object, key: nil))
        var hostile = try JSONReportWriter.read(String(decoding: data, as: UTF8.self))
        for index in hostile.cases.indices { hostile.cases[index].stderrTail = strings.joined(separator: "\n") }
        return hostile
    }

    /// `report` as if its adapter could not be started, with a hostile message and stderr.
    static func startupFailure(_ report: ComplianceReport) throws -> ComplianceReport {
        var failed = try hostile(report)
        let failure = ["message": strings.joined(separator: " "), "stderrTail": strings.joined(separator: "\n")]
        failed.run.startupFailure = try JSONDecoder().decode(RunInfo.StartupFailure.self, from: JSONEncoder().encode(failure))
        return failed
    }

    /// Values the report's reader checks against a closed set, or parses: left as they are.
    private static let closedKeys: Set<String> = ["status", "verdict", "kind", "outcome", "level", "seed", "startedAt", "finishedAt",
                                                  "digest", "sha256", "formatVersion", "cause", "severity", "source", "direction"]

    private static func poisoned(_ value: Any, key: String?) -> Any {
        switch value {
        case let text as String where key.map({ !closedKeys.contains($0) }) ?? true:
            return text + strings[Int(text.unicodeScalars.reduce(0) { ($0 &* 31 &+ $1.value) % 1_000_003 }) % strings.count]
        case let object as [String: Any]:
            return Dictionary(uniqueKeysWithValues: object.map { ($0.key, poisoned($0.value, key: $0.key)) })
        case let array as [Any]:
            return array.map { poisoned($0, key: key) }
        default:
            return value
        }
    }
}
