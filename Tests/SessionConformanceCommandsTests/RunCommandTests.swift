import Foundation
import SessionConformanceCommands
import Testing

@Suite("The run command")
struct RunCommandTests {
    @Test("running one case against the reference passes and exits 0 with the seed in the totals")
    func oneCasePasses() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--case", "five-concurrent-401s-share-one-refresh")
        #expect(code == .success, "\(console.stdout)")
        #expect(console.stdout.contains("PASS     MUST   REFRESH-SINGLE-FLIGHT"))
        #expect(console.stdout.contains("seed 1: every MUST requirement passed"))
    }

    @Test("a filter that matches no case is a usage error")
    func unknownCase() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--case", "no-such-case")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: no case matches 'no-such-case'\n"))
    }

    @Test("a seed that is not a number is a usage error")
    func badSeed() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--seed", "abc")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: --seed takes a whole number, not 'abc'\n"))
    }

    @Test("--connection is refused together with --adapter")
    func connectionWithAdapter() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--adapter", "true", "--connection", "process")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: --connection applies to the built-in reference only\n"))
    }

    @Test("specs with errors stop the run with exit 2 and the rendered errors")
    func specErrorsStopTheRun() throws {
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("specs-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: broken.path)
        defer { try? FileManager.default.removeItem(at: broken) }
        let file = broken.appendingPathComponent("cases/refresh.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "requirements: [REFRESH-SINGLE-FLIGHT, SESSION-STATE-MACHINE]",
                                      with: "requirments: [REFRESH-SINGLE-FLIGHT, SESSION-STATE-MACHINE]")
            .write(to: file, atomically: true, encoding: .utf8)
        let (code, console) = run("run", "--spec-root", broken.path)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: unknown key 'requirments' in case"))
        #expect(console.stderr.contains("run: the specs have"))
    }

    @Test("an adapter that cannot start fails the run with exit 3 and its stderr")
    func adapterThatCannotStart() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--adapter", "echo 'no such client' >&2; exit 3",
                                  "--timeout", "5")
        #expect(code == .adapterNotStarted)
        #expect(console.stdout.contains("error: the adapter could not be started"))
        #expect(console.stdout.contains("no such client"))
    }

    @Test("an adapter that answers with garbage gets an error verdict per case; the run goes on")
    func garbageAdapter() {
        let script = #"printf '{"type":"hello","protocol":1,"implementation":{"name":"junk","version":"0","language":"sh","platform":"linux"},"capabilities":[]}\n'; read line; echo 'this is not json'; cat >/dev/null"#
        let (code, console) = run("run", "--spec-root", Paths.specs, "--adapter", script, "--timeout", "5",
                                  "--filter", "launch-*")
        #expect(code == .conformanceFailure)
        #expect(console.stdout.contains("ERROR case launch-without-stored-session"))
        #expect(console.stdout.contains("ERROR case launch-with-valid-session"))
        #expect(console.stdout.contains("not JSON"))
    }
}
