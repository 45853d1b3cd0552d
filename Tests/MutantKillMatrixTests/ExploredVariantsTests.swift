import ConformanceProtocol
import ConformanceRunner
import LongTests
import Mutants
import SpecModel
import Testing

/// The variants exploration found (MutantRegistry+Explored.swift): every case but the ones it was shrunk to
/// (and the hand-written ones added since that it lists as `laterCases`, each of which kills it) passes each of them, those cases are short, and each of them alone fails the variant on its expected
/// requirements while the reference passes it.
@Suite("Variants found by exploration: only their shrunk cases kill them")
struct ExploredVariantsTests {
    static let explored = MutantRegistry.all.filter { !$0.shrunkCases.isEmpty }

    @Test("at least five variants were found by exploration, each with its shrunk cases in Specs/cases/explored.yaml")
    func exploredVariantsHaveTheirCases() throws {
        #expect(Self.explored.count >= 5)
        let bundle = try KillMatrixTests.bundle()
        let exploredFile = try #require(bundle.caseFiles.first { $0.file.hasSuffix("explored.yaml") })
        let ids = Set(exploredFile.cases.map(\.id))
        for mutant in Self.explored {
            for id in mutant.shrunkCases { #expect(ids.contains(id), "\(mutant.name): \(id) is not in explored.yaml") }
        }
        #expect(ids == Set(Self.explored.flatMap(\.shrunkCases)), "explored.yaml holds a case no variant names")
    }

    @Test("every case outside explored.yaml passes a variant exploration found: the find is the explorer's",
          arguments: explored.prefix(1).map(\.name))
    func handWrittenCasesPassTheVariant(_ name: String) throws {
        let mutant = try #require(MutantRegistry.named(name))
        var bundle = try KillMatrixTests.bundle()
        bundle.caseFiles.removeAll { $0.file.hasSuffix("explored.yaml") }
        let all = bundle.caseFiles
        bundle.caseFiles = all.map { CaseFile(file: $0.file, cases: $0.cases.filter { !mutant.laterCases.contains($0.id) }) }
        let launcher = InProcessLauncher(description: name, make: mutant.make)
        let result = SuiteRunner(bundle: bundle, launcher: launcher).run(RunOptions(seed: 1, jobs: 2))
        let failed = KillMatrixTests.failed(result)
        #expect(failed.isEmpty, "\(KillMatrixTests.findings(result, failed))")
        // The hand-written cases added since that kill it too do, each on an expected requirement.
        for id in mutant.laterCases {
            var one = bundle
            one.caseFiles = all.map { CaseFile(file: $0.file, cases: $0.cases.filter { $0.id == id }) }
            #expect(one.caseFiles.contains { !$0.cases.isEmpty }, "\(name): no case \(id)")
            let killed = KillMatrixTests.failed(SuiteRunner(bundle: one, launcher: launcher).run(RunOptions(seed: 1)))
            #expect(!killed.isDisjoint(with: mutant.expected), "\(name): \(id) does not kill it")
        }
    }

    @Test("every case outside explored.yaml passes each other variant exploration found", .long,
          arguments: explored.dropFirst().map(\.name))
    func handWrittenCasesPassEveryVariant(_ name: String) throws {
        try handWrittenCasesPassTheVariant(name)
    }

    @Test("each shrunk case has at most 10 steps, fails the variant on an expected requirement, and passes the reference",
          arguments: explored.flatMap { mutant in mutant.shrunkCases.map { (mutant.name, $0) } })
    func shrunkCaseKillsTheVariant(_ name: String, _ caseID: String) throws {
        let mutant = try #require(MutantRegistry.named(name))
        var bundle = try KillMatrixTests.bundle()
        let file = try #require(bundle.caseFiles.first { $0.file.hasSuffix("explored.yaml") })
        let acceptanceCase = try #require(file.cases.first { $0.id == caseID })
        #expect(acceptanceCase.steps.count <= 10)
        bundle.caseFiles = [CaseFile(file: file.file, cases: [acceptanceCase])]
        let variant = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: name, make: mutant.make)).run(RunOptions(seed: 1))
        #expect(!KillMatrixTests.failed(variant).isDisjoint(with: mutant.expected), "\(variant.outcomes.map(\.status))")
        let reference = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "reference", make: MutantRegistry.reference))
            .run(RunOptions(seed: 1))
        #expect(KillMatrixTests.failed(reference).isEmpty)
        #expect(reference.outcomes.allSatisfy { $0.status == .pass })
    }
}
