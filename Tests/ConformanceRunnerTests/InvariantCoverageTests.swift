@testable import ConformanceRunner
import Foundation
import SpecModel
import Testing

/// Every invariant of the real state machine is checked by an oracle, every oracle names only invariants the
/// machine has, and `lint` reports an invariant no oracle checks.
@Suite("oracles cover the state machine's invariants")
struct InvariantCoverageTests {
    static let specs = Harness.packageRoot + "/Specs"

    static func machineInvariants() throws -> [String] {
        let machine = try #require(SpecLinter.lint(paths: [specs], specRoot: specs).bundle.stateMachine)
        return machine.invariants.map(\.id)
    }

    @Test("every invariant of Specs/state-machine.yaml is checked by some oracle")
    func everyInvariantChecked() throws {
        let invariants = try Self.machineInvariants()
        #expect(invariants.count >= 24)
        let unchecked = invariants.filter { !Oracles.checkedInvariants.contains($0) }
        #expect(unchecked.isEmpty, "no oracle checks \(unchecked)")
    }

    @Test("every invariant an oracle names exists in the state machine")
    func namedInvariantsExist() throws {
        let invariants = Set(try Self.machineInvariants())
        for oracle in Oracles.all {
            let unknown = oracle.invariants.filter { !invariants.contains($0) }
            #expect(unknown.isEmpty, "oracle \(oracle.id) names invariants the machine does not have: \(unknown)")
        }
    }

    @Test("lint with the oracles' invariants reports nothing about invariants")
    func lintCleanWithAllInvariants() {
        let result = SpecLinter.lint(paths: [Self.specs], specRoot: Self.specs, checkedInvariants: Oracles.checkedInvariants)
        #expect(result.checkedCompleteness)
        #expect(result.errorCount == 0, "\(result.rendered())")
    }

    @Test("lint with one invariant unchecked reports exactly one error, at that invariant's line")
    func lintReportsTheUncheckedInvariant() throws {
        let missing = "signing-in-input-validated-first"
        let checked = Oracles.checkedInvariants.subtracting([missing])
        try #require(checked.count == Oracles.checkedInvariants.count - 1)
        let clean = SpecLinter.lint(paths: [Self.specs], specRoot: Self.specs, checkedInvariants: Oracles.checkedInvariants)
        let result = SpecLinter.lint(paths: [Self.specs], specRoot: Self.specs, checkedInvariants: checked)
        #expect(result.errorCount == 1)
        #expect(result.diagnostics.count == clean.diagnostics.count + 1)

        let file = Self.specs + "/state-machine.yaml"
        let lines = try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.hasSuffix("- id: \(missing)") })
        let column = try #require(lines[index].range(of: missing)).lowerBound.utf16Offset(in: lines[index]) + 1
        let expected = """
            \(file):\(index + 1):\(column): error: invariant '\(missing)' is checked by no oracle of the runner
            \(lines[index])
            \(String(repeating: " ", count: column - 1))^

            """
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(result.load.renderer.render(errors) == expected)
    }
}
