import ConformanceRunner
import Foundation
import LongTests
import ReferenceAdapter
import SpecModel
import SpecYAML
import Testing

/// Mutation fuzzing over the real Specs/: each mutant replaces one spec file in a copy of the folder, is
/// linted and its diagnostics rendered; a mutant that lints clean is run against the in-process reference.
/// A crash, a trap or a hang fails the test run. Bounded in `swift test` (100 mutants, 300 with
/// SESSION_CONFORMANCE_LONG_TESTS=1); longer with SESSION_CONFORMANCE_FUZZ_ITERATIONS and/or
/// SESSION_CONFORMANCE_FUZZ_SECONDS, seeded by SESSION_CONFORMANCE_FUZZ_SEED (default 1).
@Suite("Spec fuzzing")
struct SpecFuzzTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Settings {
        var iterations: Int
        var seconds: Double?
        var seed: UInt64 = 1

        init(_ environment: [String: String]) {
            iterations = environment[LongTests.variable] == "1" ? 300 : 100
            if let text = environment["SESSION_CONFORMANCE_FUZZ_ITERATIONS"], let value = Int(text) { iterations = value }
            if let text = environment["SESSION_CONFORMANCE_FUZZ_SECONDS"], let value = Double(text) {
                seconds = value
                if environment["SESSION_CONFORMANCE_FUZZ_ITERATIONS"] == nil { iterations = .max }
            }
            if let text = environment["SESSION_CONFORMANCE_FUZZ_SEED"], let value = UInt64(text) { seed = value }
        }
    }

    @Test("the mutator is deterministic: the same seed gives the same mutants")
    func deterministic() {
        let input = Array("kind: cases\nversion: 1\ncases:\n  - id: a\n    steps: [1, 2]\n".utf8)
        var first = SpecMutator(seed: 7)
        var second = SpecMutator(seed: 7)
        var other = SpecMutator(seed: 8)
        let a = (0..<20).map { _ in first.mutate(input) }
        #expect(a == (0..<20).map { _ in second.mutate(input) })
        #expect(a != (0..<20).map { _ in other.mutate(input) })
    }

    @Test("mutants of the real specs give diagnostics or a clean run, never a crash, with bounded output")
    func fuzz() throws {
        let settings = Settings(ProcessInfo.processInfo.environment)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spec-fuzz-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Specs"), to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try SpecLoader.specFiles(under: folder.path)
        try #require(files.count >= 3)
        let originals = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        var mutator = SpecMutator(seed: settings.seed)
        let started = ContinuousClock.now
        var counts = (mutants: 0, clean: 0, ran: 0)
        while counts.mutants < settings.iterations {
            if let seconds = settings.seconds, ContinuousClock.now - started > .seconds(seconds) { break }
            let index = mutator.below(files.count)
            let mutant = mutator.mutate(Array(originals[index]))
            counts.mutants += 1
            // The file alone first (loader and decoders, where hostile input bites); the whole folder only
            // when it decodes clean, for the cross-checks and the run.
            var alone = SpecLoadResult()
            SpecLoader.load(bytes: mutant, file: files[index], into: &alone)
            check(alone.renderer.render(alone.diagnostics), alone.diagnostics, mutant: counts.mutants)
            guard !alone.hasErrors else { continue }
            try Data(mutant).write(to: URL(fileURLWithPath: files[index]))
            defer { try? originals[index].write(to: URL(fileURLWithPath: files[index])) }
            let lint = SpecLinter.lint(paths: [folder.path], specRoot: folder.path)
            check(lint.rendered(), lint.diagnostics, mutant: counts.mutants)
            guard lint.errorCount == 0 else { continue }
            counts.clean += 1
            // Lints clean: the cases of the mutated file must run to a verdict against the reference.
            let mutated = lint.bundle.caseFiles.first { $0.file == files[index] }
            guard let cases = mutated?.cases, !cases.isEmpty else { continue }
            let runner = SuiteRunner(bundle: lint.bundle, launcher: InProcessLauncher(description: "reference") {
                ReferenceClientAdapter()
            })
            let result = runner.run(RunOptions(seed: settings.seed, filters: cases.map(\.id)))
            #expect(result.outcomes.count == cases.flatMap(\.variants).count)
            counts.ran += 1
        }
        let elapsed = ContinuousClock.now - started
        print("spec fuzz: seed \(settings.seed), \(counts.mutants) mutants, \(counts.clean) linted clean, "
              + "\(counts.ran) run, in \(elapsed)")
        #expect(counts.mutants > 0)
    }

    private func check(_ rendered: String, _ diagnostics: [Diagnostic], mutant: Int) {
        #expect(rendered.utf8.count <= SpecLimits.diagnosticBytes + 4_096, "mutant \(mutant): output not bounded")
        for diagnostic in diagnostics {
            #expect(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "mutant \(mutant)")
        }
    }
}
