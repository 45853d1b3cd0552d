import ConformanceRunner
import Foundation
import SessionConformanceCommands
import Testing

/// Selecting cases the way pytest users expect: `-k` / `--filter` as a case-insensitive substring, did-you-mean
/// for near misses.
@Suite("Selection like pytest")
struct PytestSelectionTests {
    /// Every case ID `list` prints, in run order.
    static func allCaseIDs() -> [String] {
        run("list", "--spec-root", Paths.specs).console.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
    }

    @Test("a filter without * is a case-insensitive substring; with one, a case-insensitive glob")
    func filterPatterns() {
        #expect(CaseSelection.filterPattern("refresh") == "*refresh*")
        #expect(CaseSelection.filterPattern("launch-*") == "launch-*")
        #expect(CaseSelection.matches(pattern: CaseSelection.filterPattern("Refresh"), id: "refresh-timeout-keeps-the-session"))
        #expect(CaseSelection.matches(pattern: "LAUNCH-*", id: "launch-with-valid-session"))
        #expect(!CaseSelection.matches(pattern: CaseSelection.filterPattern("refresh"), id: "launch-with-valid-session"))
    }

    @Test("run --filter refresh and run -k refresh play exactly the cases whose ID contains 'refresh'")
    func filterRefresh() {
        let expected = Self.allCaseIDs().filter { $0.contains("refresh") }
        #expect(expected.count > 5)
        for option in ["--filter", "-k"] {
            let (code, console) = run("run", "--spec-root", Paths.specs, option, "refresh")
            #expect(code == .success, "\(option): \(console.stdout)")
            #expect(playedCases(console.stderr) == expected, "\(option)")
        }
    }

    @Test("-k takes its value attached too, ignores case, and list takes it as well")
    func shortOptionForms() {
        let (code, console) = run("list", "--spec-root", Paths.specs, "-kCONCURRENT-401S")
        #expect(code == .success, "\(console.stderr)")
        let ids = console.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
        #expect(ids == Self.allCaseIDs().filter { $0.contains("concurrent-401s") })
        let requirements = run("list", "requirements", "--spec-root", Paths.specs, "-k", "single-flight")
        #expect(requirements.console.stdout.hasPrefix("MUST   REFRESH-SINGLE-FLIGHT: "), "\(requirements.console.stdout)")
    }

    @Test("--help shows -k beside --filter")
    func helpShowsTheAlias() {
        let (_, console) = run("run", "--help")
        #expect(console.stdout.contains("  -k, --filter PATTERN "))
    }

    @Test("a --case near miss is a usage error naming the closest case")
    func caseDidYouMean() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--case", "launch-with-valid-sesion")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: no case matches 'launch-with-valid-sesion'\nhint: did you mean 'launch-with-valid-session'?\n"),
                "\(console.stderr)")
    }

    @Test("a --case that names no case fails even beside one that does")
    func everyCaseMustExist() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--case", "launch-with-valid-session", "--case", "five-concurrent-401s-share-one-refrsh")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("hint: did you mean 'five-concurrent-401s-share-one-refresh'?"), "\(console.stderr)")
        #expect(playedCases(console.stderr).isEmpty)
    }

    @Test("--world with a near-miss name is one usage error with the closest world, not 'has errors'")
    func worldDidYouMean() {
        for command in ["run", "explore"] {
            let (code, console) = run(command, "--spec-root", Paths.specs, "--world", "rfc6794")
            #expect(code == .specOrUsageError)
            #expect(console.stderr.hasPrefix("error: no world profile 'rfc6794': not a file, and the spec's worlds are json-v1, rfc6749\n"
                                             + "hint: did you mean 'rfc6749'?\n"), "\(console.stderr)")
            #expect(!console.stderr.contains("has errors"), "\(console.stderr)")
        }
    }
}
