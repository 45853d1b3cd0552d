import Foundation
import SessionConformanceCommands
import Testing

@Suite("The mutants command")
struct MutantsCommandTests {
    @Test("--list names every variant with its kind and defect, and runs nothing")
    func listsVariants() {
        let (code, console) = run("mutants", "--list")
        #expect(code == .success)
        for name in ["refresh-per-request", "when-unlocked-tokens", "naive-ios", "naive-android", "naive-flutter"] {
            #expect(console.stdout.contains(name))
        }
        #expect(!console.stdout.contains("score:"))
    }

    @Test("an unknown variant is a usage error with a suggestion")
    func unknownVariant() {
        let (code, console) = run("mutants", "--variant", "token-in-logs")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("unknown variant 'token-in-logs'"))
        #expect(console.stderr.contains("did you mean 'token-in-log'?"))
    }

    @Test("one variant: the control passes, the matrix row names the killing requirement, and the score is 100%")
    func oneVariantIsKilled() {
        let (code, console) = run("mutants", "--variant", "no-input-validation", "--spec-root", Paths.specs, "--jobs", "2")
        #expect(code == .success, "\(console.stdout)\(console.stderr)")
        #expect(console.stdout.contains("control: the unmodified reference passes every case and every requirement"))
        let row = console.stdout.split(separator: "\n").first { $0.hasPrefix("no-input-validation") }
        #expect(row?.contains("yes") == true)
        #expect(row?.contains("SIGNIN-VALIDATE-INPUT") == true)
        #expect(console.stdout.contains("score: 1 / 1 killed (100%)"))
    }
}

@Suite("The mutants command's explore column")
struct MutantsExploreColumnTests {
    @Test("--explore adds the first generated run that finds the variant by its expected requirement's oracle")
    func exploreColumnNamesTheRun() {
        let (code, console) = run("mutants", "--variant", "token-in-log", "--spec-root", Paths.specs, "--jobs", "2", "--explore", "200")
        #expect(code == .success, "\(console.stdout)\(console.stderr)")
        let lines = console.stdout.split(separator: "\n")
        #expect(lines.first { $0.hasPrefix("variant") }?.contains("explore") == true)
        let row = lines.first { $0.hasPrefix("token-in-log") }.map(String.init) ?? ""
        #expect(row.range(of: #"\brun [0-9]+\b"#, options: .regularExpression) != nil, "\(row)")
        #expect(!console.stdout.contains("not found by"))
    }

    @Test("a variant the runs do not find is listed, and the exit is a conformance failure")
    func variantNotFoundFailsTheRun() {
        // One generated run is too few to find a defect that needs a sign-out with a revocation offline.
        let (code, console) = run("mutants", "--variant", "forget-offline-revocation", "--spec-root", Paths.specs, "--explore", "1")
        #expect(code == .conformanceFailure, "\(console.stdout)\(console.stderr)")
        #expect(console.stdout.contains("not found by 1 generated runs: forget-offline-revocation"))
    }

    @Test("through a process that cannot start (no reference adapter beside the executable) the column says error, not NO, and the exit is 1")
    func adapterThatCannotStartIsNoMiss() throws {
        try #require(FileManager.default.isExecutableFile(atPath: InterruptionTests.executable.path), "build the executable first")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mutants-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = try LaunchedProcess.copyCLI(into: folder)
        let (status, text, _) = try LaunchedProcess.run(
            alone, ["mutants", "--variant", "refresh-per-request", "--spec-root", Paths.specs, "--explore", "5", "--connection", "process"], in: folder)
        #expect(status == 1, "\(text)")
        let row = text.split(separator: "\n").first { $0.hasPrefix("refresh-per-request") }.map(String.init) ?? ""
        #expect(row.contains(" error "), "\(row)")
        #expect(text.contains("not explored: refresh-per-request: its client could not be started: "), "\(text)")
        #expect(!text.contains("not found by"), "\(text)")
    }

    @Test("--explore takes a positive number of runs")
    func exploreNeedsRuns() {
        let (code, console) = run("mutants", "--variant", "token-in-log", "--explore", "0")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("--explore must be at least 1"))
    }
}
