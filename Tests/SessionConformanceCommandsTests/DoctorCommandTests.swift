import Foundation
import ConformanceReports
import JSONCore
import SessionConformanceCommands
import Testing

/// `session-conformance doctor`: its console text, its JSON report and its exit codes.
@Suite("doctor command")
struct DoctorCommandTests {
    static let hostile = Paths.root.appendingPathComponent("Tests/AdapterProcessTests/Fixtures/hostile").path

    static func doctor(_ arguments: [String]) -> (code: ExitCode, console: BufferConsole) {
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["doctor", "--spec-root", Paths.specs] + arguments, console: console)
        return (code, console)
    }

    /// The console text with each probe's real time masked.
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d+\.\d s "#, with: "T s ", options: .regularExpression)
    }

    @Test("the reference adapter passes every probe: exit 0, one note for its missing request deadline")
    func referencePasses() {
        let (code, console) = Self.doctor([])
        #expect(code == .success, "\(console.stdout)")
        let lines = console.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("  ok ") }.count == 6)
        #expect(lines.last == "doctor: 0 problems, 1 note: the adapter speaks the protocol; 'run' gives the client's verdicts")
    }

    @Test("an adapter that answers barriers with other ids: exit 1, and the whole text says what, where and the fix")
    func wrongBarrierText() {
        let command = "exec python3 -u '\(Self.hostile)/wrong_barrier.py'"
        let (code, console) = Self.doctor(["--adapter", command])
        #expect(code == .conformanceFailure)
        let expected = """
            doctor: \(WorkingDirectory.relativizing(command))
            hello: hostile 0 (python, test); capabilities: none; http: message; refreshTriggers: not declared (the runner finds out)
              error    sign-in            T s    Launch, sign in with a password, show one resource
              not-run  fresh-after-reset           A launch with nothing stored, on the sign-in probe's process reset (when the adapter declares 'reset')
              not-run  refresh                     Requests after the access token expired refresh the session
              not-run  deadline                    A request the world holds for two minutes of the virtual clock
              not-run  kill-and-relaunch           A process death after sign-in, a relaunch, a request
              not-run  sign-out                    Sign in, then sign out
            problem[barrier-id] (probe sign-in): the runner sent barrier 'b1' and the adapter answered 'not-b1'. The protocol: a barrier is answered once, with the id the runner sent, when the client is idle (docs/adapter-protocol.md#clock-timers-and-barriers). Fix: echo the barrier's 'id' exactly
            doctor: 1 problem, 0 notes: fix the problems before reading 'run's verdicts

            """
        #expect(Self.masked(console.stdout) == expected)
    }

    @Test("an adapter that never says hello exits 3, as run does")
    func notStartedExits3() {
        let (code, console) = Self.doctor(["--adapter", "exec /bin/sh '\(Self.hostile)/never_says_hello.sh'", "--timeout", "1"])
        #expect(code == .adapterNotStarted)
        #expect(console.stdout.contains("problem[no-hello] (handshake): the adapter sent no message within 1.0 seconds of starting (no hello)."))
        #expect(console.stdout.hasSuffix("doctor: the adapter did not start; nothing else was checked\n"))
    }

    @Test("--report json writes every probe and diagnosis as data")
    func jsonReport() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let variant = ExitCodeTests.referenceAdapter + " --variant token-in-log"
        let (code, console) = Self.doctor(["--adapter", variant, "--report", "json=\(path)"])
        #expect(code == .conformanceFailure, "\(console.stdout)")
        let json = try JSONParser.parse(String(contentsOfFile: path, encoding: .utf8))
        #expect(json["kind"]?.string == "session-conformance-doctor")
        #expect(json["result"]?.string == "problems")
        #expect(json["probes"]?.array?.compactMap { $0["status"]?.string } == ["ok", "ok", "problems", "ok", "ok", "ok"])
        let problem = try #require(json["diagnoses"]?.array?.first { $0["check"]?.string == "token-in-output" })
        #expect(problem["severity"]?.string == "problem")
        // The variant logs the token it refreshed with: only the refresh probe shows it.
        #expect(problem["probe"]?.string == "refresh")
        #expect(problem["section"]?.string == "docs/adapter-protocol.md#events-no-reply")
        // Tokens appear as handles only.
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("sat_"))
    }

    @Test("a report format other than json is a usage error (exit 2) that names the one it writes")
    func otherFormatIsAUsageError() {
        let (code, console) = Self.doctor(["--report", "html"])
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: doctor writes its report as json only, not 'html'"))
    }
}
