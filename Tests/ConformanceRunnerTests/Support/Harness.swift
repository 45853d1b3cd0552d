import ConformanceProtocol
@testable import ConformanceRunner
import Foundation
import SpecModel
import Testing

/// Builds spec bundles from inline case YAML plus the real requirements and state machine, and runs them
/// against the fake client.
enum Harness {
    struct SpecProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root, found from this file: Tests/ConformanceRunnerTests/Support/Harness.swift.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The real requirements catalogue and state machine, read once.
    private static let specFiles: [(path: String, bytes: [UInt8]?)] = ["Specs/requirements.yaml", "Specs/state-machine.yaml"]
        .map { file in
            let path = packageRoot + "/" + file
            return (path, FileManager.default.contents(atPath: path).map { Array($0) })
        }

    /// The text of a real case file, `Specs/cases/NAME`, to run as written.
    static func realCaseFile(_ name: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/Specs/cases/" + name, encoding: .utf8)
    }

    /// A case file with the given cases, indented as list items under `cases:`.
    static func caseFile(_ cases: String) -> String {
        "kind: cases\nversion: 1\ncases:\n" + cases
    }

    /// The real catalogue and state machine with the inline case file; fails on any diagnostic error or on a
    /// case naming a requirement the catalogue does not have.
    /// `editingStateMachine` rewrites the real state machine's text first (an alias a test needs, say).
    static func bundle(_ casesYAML: String, editingStateMachine edit: (String) -> String = { $0 }) throws -> SpecBundle {
        var result = SpecLoader.load(files: [])
        for (path, bytes) in specFiles {
            guard let bytes else { throw SpecProblem(description: "cannot read \(path)") }
            let edited = path.hasSuffix("state-machine.yaml") ? Array(edit(String(decoding: bytes, as: UTF8.self)).utf8) : bytes
            SpecLoader.load(bytes: edited, file: path, into: &result)
        }
        SpecLoader.load(bytes: Array(casesYAML.utf8), file: "inline-cases.yaml", into: &result)
        if result.hasErrors {
            throw SpecProblem(description: result.renderer.render(result.diagnostics))
        }
        guard result.bundle.catalogue != nil, result.bundle.stateMachine != nil else {
            throw SpecProblem(description: "the real spec did not load a catalogue and a state machine")
        }
        let known = Set(result.bundle.requirements.map(\.id))
        for acceptanceCase in result.bundle.cases {
            for requirement in acceptanceCase.requirements where !known.contains(requirement.value) {
                throw SpecProblem(description: "case \(acceptanceCase.id) names unknown requirement \(requirement.value)")
            }
        }
        return result.bundle
    }

    static func launcher(_ configuration: FakeSessionClient.Configuration) -> InProcessLauncher {
        InProcessLauncher(description: "fake session client") { FakeSessionClient(configuration) }
    }

    static func run(_ casesYAML: String, _ configuration: FakeSessionClient.Configuration = .init(),
                    seed: UInt64 = 1, jobs: Int = 1) throws -> RunResult {
        try run(casesYAML, launcher: launcher(configuration), seed: seed, jobs: jobs)
    }

    static func run(_ casesYAML: String, launcher: any AdapterLauncher, seed: UInt64 = 1, jobs: Int = 1) throws -> RunResult {
        SuiteRunner(bundle: try bundle(casesYAML), launcher: launcher).run(RunOptions(seed: seed, jobs: jobs))
    }

    /// Runs a file holding one case and returns that case's outcome with the whole result.
    static func runOne(_ casesYAML: String, _ configuration: FakeSessionClient.Configuration = .init(),
                       seed: UInt64 = 1) throws -> (outcome: CaseOutcome, result: RunResult) {
        let result = try run(casesYAML, configuration, seed: seed)
        guard result.outcomes.count == 1, let outcome = result.outcomes.first else {
            throw SpecProblem(description: "expected one case, ran \(result.outcomes.count)")
        }
        return (outcome, result)
    }

    /// The trace as the report shows it, for failure messages.
    static func rendered(_ outcome: CaseOutcome) -> String {
        TraceRenderer(vault: outcome.vault).render(outcome.trace)
    }

    static func describe(_ findings: [Finding]) -> String {
        findings.map { "[\($0.requirements.joined(separator: ", "))] \($0.check): \($0.message) @\($0.evidence)" }
            .joined(separator: "\n")
    }

    static func verdict(_ id: String, in result: RunResult) -> RequirementVerdict? {
        result.requirements.first { $0.id == id }
    }
}

/// The two claims every oracle test makes: silence on a correct client, a charged finding on a broken one.
enum OracleCheck {
    /// The correct fake passes the case: status pass, no finding from any oracle or expectation.
    static func passes(_ casesYAML: String, capabilities: [String] = [],
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let (outcome, _) = try Harness.runOne(casesYAML, .init(capabilities: capabilities))
        #expect(outcome.status == .pass, "reason: \(outcome.reason ?? "none")\n\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))",
                sourceLocation: sourceLocation)
        #expect(outcome.findings.isEmpty, "\(Harness.describe(outcome.findings))", sourceLocation: sourceLocation)
    }

    /// The fake with `defect` fails the case with at least one finding of `oracle` charged to `requirement`,
    /// with evidence that points at events of the trace; the requirement's verdict is `fail` (all these are MUST).
    /// Returns that oracle's findings and the outcome. `alsoBy`: oracles that see the same defect from another
    /// side; they must charge the same requirement. `alsoBreaks`: oracles of another requirement the same defect
    /// breaks as well (the caller checks their findings).
    @discardableResult
    static func fails(_ casesYAML: String, defect: FakeSessionClient.Defect, oracle: String, requirement: String,
                      alsoBy: Set<String> = [], alsoBreaks: Set<String> = [], capabilities: [String] = [],
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> (findings: [Finding], outcome: CaseOutcome) {
        let (outcome, result) = try Harness.runOne(casesYAML, .init(capabilities: capabilities, defects: [defect]))
        let context = "\(Harness.describe(outcome.findings))\n\(Harness.rendered(outcome))"
        #expect(outcome.status == .fail, "status \(outcome.status), reason: \(outcome.reason ?? "none")\n\(context)",
                sourceLocation: sourceLocation)
        let mine = outcome.findings.filter { $0.check == "oracle:\(oracle)" }
        let others = outcome.findings.filter {
            $0.check.hasPrefix("oracle:") && $0.check != "oracle:\(oracle)"
                && !(alsoBy.contains(String($0.check.dropFirst("oracle:".count))) && $0.requirements == [requirement])
                && !alsoBreaks.contains(String($0.check.dropFirst("oracle:".count)))
        }
        #expect(others.isEmpty, "the defect should break one behaviour, yet other oracles fired:\n\(Harness.describe(others))",
                sourceLocation: sourceLocation)
        let charged = mine.filter { $0.requirements.contains(requirement) }
        #expect(!charged.isEmpty, "no finding of \(oracle) charged to \(requirement)\n\(context)", sourceLocation: sourceLocation)
        for finding in mine {
            #expect(!finding.evidence.isEmpty, "a finding without evidence: \(finding.message)", sourceLocation: sourceLocation)
            for event in finding.evidence {
                #expect((1...outcome.trace.events.count).contains(event),
                        "evidence #\(event) is not an event of the trace (1...\(outcome.trace.events.count))",
                        sourceLocation: sourceLocation)
            }
            if let first = finding.evidence.first, (1...outcome.trace.events.count).contains(first) {
                #expect(finding.step == outcome.trace.events[first - 1].step, "the finding's step is not its first evidence's",
                        sourceLocation: sourceLocation)
            }
        }
        #expect(Harness.verdict(requirement, in: result)?.status == .fail, sourceLocation: sourceLocation)
        #expect(Oracles.all.first { $0.id == oracle }?.requirements.contains(requirement) == true,
                "oracle \(oracle) does not name \(requirement) among the requirements it charges", sourceLocation: sourceLocation)
        return (charged, outcome)
    }

    /// The trace event with this number.
    static func event(_ number: Int, in outcome: CaseOutcome) -> TraceEvent? {
        outcome.trace.events.indices.contains(number - 1) ? outcome.trace.events[number - 1] : nil
    }

    /// The message received from the client at this event, if it is one.
    static func received(_ number: Int, in outcome: CaseOutcome) -> AdapterMessage? {
        if case .received(let message)? = event(number, in: outcome)?.kind { return message }
        return nil
    }

    /// The HTTP request the client sent at this event, if it is one.
    static func request(_ number: Int, in outcome: CaseOutcome) -> HTTPRequestMessage? {
        if case .http(_, _, let request)? = received(number, in: outcome) { return request }
        return nil
    }

    /// The transition the client reported at this event, if it is one.
    static func transition(_ number: Int, in outcome: CaseOutcome) -> TransitionEvent? {
        if case .transition(let transition)? = received(number, in: outcome) { return transition }
        return nil
    }
}
