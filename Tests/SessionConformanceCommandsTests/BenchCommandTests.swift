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
        #expect(console.stdout.contains("| runs per minute (wall), in-process |"))
        #expect(!console.stdout.contains("adapter / in-process"))
    }

    @Test("bench --explore --adapter measures the same runs in-process and through the adapter, with their ratio and CPU split")
    func exploreBenchThroughAnAdapter() throws {
        let adapter = ExitCodeTests.referenceAdapter + " --reset"
        let (code, console) = run("bench", "--explore", "--adapter", adapter, "--runs", "24", "--repeat", "1", "--spec-root", Paths.specs)
        #expect(code == .success, "\(console.stderr)")
        let out = console.stdout
        #expect(out.contains("| explore, 24 runs, 2 jobs, in-process |"), "\(out)")
        #expect(out.contains("| explore, 24 runs, 2 jobs, through `\(adapter)` |"))
        #expect(out.contains("| CPU per run, runner (ms) |") && out.contains("| CPU per run, adapter processes (ms) |"))
        #expect(out.contains(#/adapter / in-process \(runs per minute, medians\): \*\*\d+\.\d%\*\*/#))
        // The reference adapter declares `reset` here: most kills reset its process.
        let kills = try #require(out.split(separator: "\n").first { $0.hasPrefix("kills in the last repeat: ") })
        #expect(kills.contains(#/\d+ ended the adapter's process, [1-9]\d* reset it/#), "\(kills)")
    }
}
