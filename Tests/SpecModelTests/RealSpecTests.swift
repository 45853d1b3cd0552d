import Foundation
import SpecModel
import SpecYAML
import Testing

@Suite("The real Specs folder")
struct RealSpecTests {
    @Test("loads with no diagnostics and runs the whole-spec checks")
    func loadsClean() {
        let result = SpecLinter.lint(paths: [PackagePaths.specs.path])
        #expect(result.rendered() == "")
        #expect(result.checkedCompleteness)
        #expect(result.bundle.catalogue != nil)
        #expect(result.bundle.stateMachine != nil)
    }

    @Test("has the states of the design's diagram, all reachable, each transition cited")
    func stateMachineMatchesTheDesign() throws {
        let machine = try #require(SpecLinter.lint(paths: [PackagePaths.specs.path]).bundle.stateMachine)
        #expect(Set(machine.states.map(\.id)) == ["restoring", "authenticated", "refreshing", "signedOut", "signingIn"])
        #expect(machine.initial.value == "restoring")
        let rejected = try #require(machine.transition("refresh-rejected"))
        #expect(rejected.from.value == "refreshing" && rejected.to.value == "signedOut")
        let signedIn = try #require(machine.transition("sign-in-succeeded"))
        #expect(signedIn.to.value == "authenticated" && signedIn.generation == .increment)
    }

    @Test("lets a client skip only refresh-started and sign-in-started, and lists the paths through them")
    func optionalTransitionsAndPaths() throws {
        let machine = try #require(SpecLinter.lint(paths: [PackagePaths.specs.path]).bundle.stateMachine)
        #expect(machine.transitions.filter(\.optional).map(\.id) == ["refresh-started", "sign-in-started"])
        let ends = machine.paths(from: "authenticated", to: "signedOut")
        #expect(ends.map { [$0.skipped?.id, $0.transition.id] } == [
            [nil, "sign-out"], ["refresh-started", "refresh-rejected"], ["refresh-started", "sign-out-during-refresh"],
        ])
        #expect(machine.paths(from: "signedOut", to: "authenticated").map { [$0.skipped?.id, $0.transition.id] }
            == [["sign-in-started", "sign-in-succeeded"]])
        #expect(machine.paths(from: "restoring", to: "refreshing").isEmpty)
    }

    @Test("a transition is named by its ID or by an alias")
    func aliasesNameTheirTransition() throws {
        let text = try String(contentsOf: PackagePaths.specs.appendingPathComponent("state-machine.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "  - id: refresh-deferred\n", with: "  - id: refresh-deferred\n    aliases: [refresh-postponed, refresh-backed-off]\n")
        var result = SpecLoader.load(files: [])
        SpecLoader.load(bytes: Array(text.utf8), file: "state-machine.yaml", into: &result)
        #expect(!result.hasErrors)
        let machine = try #require(result.bundle.stateMachine)
        #expect(machine.transition(named: "refresh-backed-off")?.id == "refresh-deferred")
        #expect(machine.transition(named: "refresh-deferred")?.id == "refresh-deferred")
        #expect(machine.transition("refresh-postponed") == nil && machine.transition(named: "refresh-paused") == nil)
    }

    @Test("quotes the additions of the platform guide and resolves its contradictions")
    func platformGuideIsResolved() throws {
        let catalogue = try #require(SpecLinter.lint(paths: [PackagePaths.specs.path]).bundle.catalogue)
        for id in ["SIGNIN-VALIDATE-INPUT", "REFRESH-RETRY-ONCE", "REFRESH-NOT-THROUGH-401-HANDLER",
                   "REFRESH-USE-LATEST-TOKEN", "STORAGE-ATOMIC-PAIR", "RESTORE-CHECK-ON-LAUNCH"] {
            let requirement = try #require(catalogue.requirement(id), "\(id) missing")
            #expect(requirement.sources.contains { $0.document.value.hasPrefix("003_") }, "\(id) does not quote 003")
        }
        for id in ["REFRESH-ONLY-REJECTION-SIGNS-OUT", "RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED"] {
            let resolution = try #require(catalogue.requirement(id)?.resolution, "\(id) has no resolution")
            #expect(!resolution.follows.value.hasPrefix("003_"))
            #expect(resolution.rejects.allSatisfy { $0.document.value.hasPrefix("003_") })
        }
    }

    /// The coverage check is what guarantees every sentence of 000 and 001 is quoted; show it bites.
    @Test("removing any one quote of a complete document makes lint report the uncovered text")
    func coverageCheckCatchesAMissingQuote() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("specs-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: PackagePaths.specs, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let file = copy.appendingPathComponent("requirements.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        let quote = "quote: \"Increment a session epoch on logout or account switch.\""
        #expect(text.contains(quote))
        try text.replacingOccurrences(of: quote, with: "quote: \"Allow one refresh in flight\"")
            .write(to: file, atomically: true, encoding: .utf8)
        let result = SpecLinter.lint(paths: [copy.path])
        let messages = result.diagnostics.map(\.message)
        #expect(messages.contains {
            $0.contains("not quoted by any requirement") && $0.contains("Increment a session epoch")
        })
    }
}
