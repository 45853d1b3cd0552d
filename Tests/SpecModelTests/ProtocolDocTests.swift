import Foundation
import SpecModel
import Testing

/// docs/adapter-protocol.md says, per transition, what it does to the session generation, as
/// Specs/state-machine.yaml does; and its transcripts follow those rules.
@Suite("docs/adapter-protocol.md agrees with the state machine")
struct ProtocolDocTests {
    static let begin = "<!-- transitions: generated from Specs/state-machine.yaml (StateMachine.markdownTransitionTable); a test checks it -->"
    static let end = "<!-- end of transitions -->"

    static func machine() throws -> StateMachine {
        try #require(SpecLinter.lint(paths: [PackagePaths.specs.path]).bundle.stateMachine)
    }

    static func document() throws -> String {
        try String(contentsOf: PackagePaths.root.appendingPathComponent("docs/adapter-protocol.md"), encoding: .utf8)
    }

    /// The text between the markers, or nil when they are missing.
    static func table(in document: String) -> String? {
        guard let start = document.range(of: begin + "\n"), let stop = document.range(of: end, range: start.upperBound..<document.endIndex)
        else { return nil }
        return String(document[start.upperBound..<stop.lowerBound])
    }

    @Test("the transition table is the one state-machine.yaml gives: ID, from -> to, a new generation or not, optional, aliases")
    func tableMatchesTheMachine() throws {
        let expected = try Self.machine().markdownTransitionTable()
        let table = Self.table(in: try Self.document())
        #expect(table == expected, """
            docs/adapter-protocol.md needs, between the lines
            \(Self.begin)
            \(Self.end)
            this table:
            \(expected)
            """)
    }

    @Test("every transition the doc's transcripts report follows the machine: from where the last one left, to its state, the generation kept or made larger as the table says")
    func transcriptsFollowTheGenerationRules() throws {
        let problems = Self.transcriptProblems(try Self.document(), machine: try Self.machine())
        #expect(problems.isEmpty, "docs/adapter-protocol.md:\n  \(problems.joined(separator: "\n  "))")
    }

    @Test("the transcript check catches a generation that breaks the rule, a wrong state, and an elision that hides a transition")
    func transcriptCheckCatchesMistakes() throws {
        let machine = try Self.machine()
        func transition(_ name: String?, _ from: String?, _ to: String, _ generation: Int) -> String {
            let quoted = { (value: String?) in value.map { "\"\($0)\"" } ?? "null" }
            return "< {\"type\":\"transition\",\"transition\":\(quoted(name)),\"from\":\(quoted(from)),\"to\":\"\(to)\",\"account\":null,\"generation\":\(generation),\"reason\":\"x\"}"
        }
        let good = ["### A", "```", transition(nil, nil, "restoring", 1), transition("restore-failed", "restoring", "signedOut", 2),
                    transition("sign-in-started", "signedOut", "signingIn", 2), "```", "### B", "```",
                    transition("sign-in-succeeded", "signingIn", "authenticated", 3), "```"]
        #expect(Self.transcriptProblems(good.joined(separator: "\n"), machine: machine).isEmpty)
        // The transcript that misled an adapter writer: the launch's restore-failed elided, sign-in-started seen at 2.
        let bad = ["### Loopback", "```", transition(nil, nil, "restoring", 1), "  ... launch, restore-failed, signInPrompt ...",
                   transition("sign-in-started", "signedOut", "signingIn", 2), transition("sign-in-succeeded", "signingIn", "authenticated", 2),
                   transition("sign-out", "signingIn", "signedOut", 3), "```"]
        #expect(Self.transcriptProblems(bad.joined(separator: "\n"), machine: machine) == [
            "line 4 (### Loopback): an elision names restore-failed; write its transition line out, so the generation change shows",
            "line 5 (### Loopback): sign-in-started from signedOut: the previous transition left the client in restoring, not signedOut",
            "line 5 (### Loopback): sign-in-started keeps the generation, but it goes from 1 to 2",
            "line 6 (### Loopback): sign-in-succeeded starts a new generation, but it goes from 2 to 2",
            "line 7 (### Loopback): sign-out goes from authenticated, not signingIn",
        ])
    }

    /// Checks the `transition` messages of the fenced blocks, in order, section by section (a `#` heading starts a
    /// new transcript; blocks of one section continue each other): each names a transition of the machine with its
    /// `from` and `to`, starts where the previous one left the client, and keeps or increments the generation as
    /// the machine says. The entry into the initial state (`"transition":null`) starts over at its generation.
    /// An elided line (`...`) may not name a transition or a generation change: the reader would not see it.
    static func transcriptProblems(_ document: String, machine: StateMachine) -> [String] {
        var problems: [String] = []
        var section = ""
        var fenced = false
        var state: String?
        var generation: Int?
        let names = machine.transitions.flatMap { [$0.id] + $0.aliases.map(\.value) }
        for (index, line) in document.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let at = "line \(index + 1) (\(section))"
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if !fenced {
                if line.hasPrefix("#") { section = String(line); state = nil; generation = nil }
                continue
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("...") || text.hasPrefix("<  ...") || text.hasPrefix("< ...") || text.hasPrefix("> ...") {
                for name in names where text.contains(name) {
                    problems.append("\(at): an elision names \(name); write its transition line out, so the generation change shows")
                }
                if text.contains("generation") {
                    problems.append("\(at): an elision speaks of a generation; write the transition lines out")
                }
                continue
            }
            guard let brace = line.firstIndex(of: "{"),
                  let object = try? JSONSerialization.jsonObject(with: Data(line[brace...].utf8)) as? [String: Any],
                  let type = object["type"] as? String else { continue }
            let reported = object["generation"] as? Int
            if type == "ui", object["event"] as? String == "content", let reported, let generation, reported != generation {
                problems.append("\(at): content shown under generation \(reported), but the session's generation is \(generation)")
            }
            guard type == "transition" else { continue }
            let to = object["to"] as? String
            guard let name = object["transition"] as? String else {
                if to != machine.initial.value { problems.append("\(at): the entry goes to \(to ?? "nothing"), not \(machine.initial.value)") }
                (state, generation) = (machine.initial.value, reported)
                continue
            }
            guard let transition = machine.transition(named: name) else {
                problems.append("\(at): \(name) is no transition of Specs/state-machine.yaml")
                (state, generation) = (nil, nil)
                continue
            }
            let from = object["from"] as? String
            if from != transition.from.value { problems.append("\(at): \(name) goes from \(transition.from.value), not \(from ?? "null")") }
            if to != transition.to.value { problems.append("\(at): \(name) goes to \(transition.to.value), not \(to ?? "null")") }
            if let state, state != transition.from.value {
                problems.append("\(at): \(name) from \(transition.from.value): the previous transition left the client in \(state), not \(transition.from.value)")
            }
            if let generation, let reported {
                // spec-format.md, section 6: `keep` leaves it unchanged, `increment` makes it larger.
                let increments = transition.generation == .increment
                if increments ? reported <= generation : reported != generation {
                    let rule = increments ? "starts a new generation" : "keeps the generation"
                    problems.append("\(at): \(name) \(rule), but it goes from \(generation) to \(reported)")
                }
            }
            (state, generation) = (transition.to.value, reported)
        }
        return problems
    }
}
