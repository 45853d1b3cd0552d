import Testing
@testable import SessionConformanceCommands

@Suite("The bench command")
struct BenchCommandTests {
    @Test("the built-in mass-401 case is a valid case of today's spec format", arguments: [1_000, 10_000])
    func massCaseLoadsClean(count: Int) throws {
        let load = BenchCommand.massUnauthorizedCase(count: count)
        #expect(load.diagnostics.isEmpty, "\(load.renderer.render(load.diagnostics))")
        let caseFile = try #require(load.bundle.caseFiles.first)
        #expect(caseFile.cases.map(\.id) == ["bench-\(count)-simultaneous-401s"])
    }

    @Test("bench --explore measures a few runs and prints runs per minute")
    func exploreBenchRuns() {
        let (code, console) = run("bench", "--explore", "--runs", "40", "--repeat", "1", "--spec-root", Paths.specs)
        #expect(code == .success, "\(console.stderr)")
        #expect(console.stdout.contains("| explore, 40 runs, 2 jobs, in-process |"), "\(console.stdout)")
        #expect(console.stdout.contains("explore runs per minute (wall)"))
    }
}
