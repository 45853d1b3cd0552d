@testable import ConformanceRunner
import Foundation
import SpecModel
import Testing

/// `doctor` names what is wrong with an adapter: each hostile fixture gets its diagnosis, a correct adapter none.
@Suite("doctor")
struct DoctorTests {
    static let hostile = Harness.packageRoot + "/Tests/AdapterProcessTests/Fixtures/hostile"
    static let fixtures = Harness.packageRoot + "/Tests/AdapterProcessTests/Fixtures"
    static let own = Harness.packageRoot + "/Tests/ConformanceRunnerTests/Fixtures"

    static func examine(_ command: String, timeout: Duration = .seconds(10)) throws -> DoctorReport {
        let machine = try #require(try Harness.bundle(DoctorProbes.yaml).stateMachine)
        return AdapterDoctor(launcher: ProcessAdapterLauncher(commandLine: command, timeout: timeout), machine: machine).examine()
    }

    static func hello(_ fields: String) -> String {
        "echo '{\"type\":\"hello\",\"protocol\":1,\"implementation\":{\"name\":\"x\",\"version\":\"0\",\"language\":\"sh\",\"platform\":\"test\"},\(fields)}'; cat > /dev/null"
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        let command: String
        let timeout: Int
        /// The check of the first problem, and the probe it was seen in (nil: the handshake).
        let check: String
        let probe: String?
        var testDescription: String { check }
    }

    static let cases: [Hostile] = [
        Hostile(command: "exec python3 -u '\(hostile)/wrong_barrier.py'", timeout: 10, check: "barrier-id", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/goes_silent.py'", timeout: 2, check: "silent", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/closes_stdout.py'", timeout: 5, check: "closed-stdout", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/chatters.py'", timeout: 2, check: "never-settles", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/refreshes_forever.py'", timeout: 2, check: "never-settles", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/floods_log.py'", timeout: 10, check: "over-budget", probe: "sign-in"),
        Hostile(command: "exec /bin/sh '\(hostile)/exits_after_hello.sh'", timeout: 10, check: "exited", probe: "sign-in"),
        Hostile(command: "exec /bin/sh '\(hostile)/exits_leaving_child.sh'", timeout: 10, check: "exited", probe: "sign-in"),
        Hostile(command: "exec python3 -u '\(hostile)/slow_commands.py'", timeout: 10, check: "sign-in-failed", probe: "sign-in"),
        Hostile(command: "exec /bin/sh '\(hostile)/never_says_hello.sh'", timeout: 1, check: "no-hello", probe: nil),
        Hostile(command: "exec python3 '\(fixtures)/crashes.py'", timeout: 5, check: "bad-message", probe: nil),
        Hostile(command: "no-such-adapter-for-doctor", timeout: 5, check: "not-started", probe: nil),
        Hostile(command: hello("\"protocol\":2,\"capabilities\":[]").replacingOccurrences(of: "\"protocol\":1,", with: ""),
                timeout: 5, check: "protocol-version", probe: nil),
        Hostile(command: hello("\"capabilities\":[],\"refreshTriggers\":[\"sometimes\"]"), timeout: 5, check: "unknown-refresh-trigger", probe: nil),
        Hostile(command: "exec python3 '\(own)/logs-token/adapter.py'", timeout: 30, check: "token-in-output", probe: "sign-in"),
        Hostile(command: "exec python3 '\(own)/doctor/reset_keeps_session.py'", timeout: 5, check: "reset-keeps-state", probe: "fresh-after-reset"),
    ]

    @Test("each hostile adapter gets its diagnosis, in the probe that shows it", arguments: cases)
    func hostileAdapterDiagnosed(_ hostile: Hostile) throws {
        let report = try Self.examine(hostile.command, timeout: .seconds(hostile.timeout))
        let problem = try #require(report.problems.first { $0.check == hostile.check },
                                   "\(report.diagnoses.map(\.line))")
        #expect(problem.probe == hostile.probe)
        #expect(report.notStarted == (hostile.probe == nil))
        // The line says what was seen, the rule, the section and the fix.
        #expect(problem.line.contains(problem.rule) && problem.line.contains(problem.section) && problem.line.contains("Fix: " + problem.fix))
    }

    @Test("a probe that ends in an adapter error stops the script: the later probes are not run")
    func errorStopsTheScript() throws {
        let report = try Self.examine("exec python3 -u '\(Self.hostile)/wrong_barrier.py'")
        #expect(report.probes.map(\.status.rawValue) == ["error", "not-run", "not-run", "not-run", "not-run", "not-run"])
        #expect(report.problems.count == 1)
    }

    @Test("real time that passes with the adapter silent is a note, beside the failure it caused")
    func realTimeWaitIsANote() throws {
        let report = try Self.examine("exec python3 -u '\(Self.hostile)/sleeps_in_real_time.py'")
        let note = try #require(report.diagnoses.first { $0.check == "real-time-wait" })
        #expect(note.severity == .note)
        #expect(note.seen.contains("1.5 s of real time"))
    }

    @Test("requests that name no command are a note, not a problem: 'cause' is optional")
    func missingCauseIsANote() throws {
        let report = try Self.examine("exec python3 '\(Self.own)/doctor/no_cause.py'", timeout: .seconds(30))
        #expect(report.problems.isEmpty, "\(report.problems.map(\.line))")
        let note = try #require(report.diagnoses.first { $0.check == "no-cause" })
        #expect(note.severity == .note)
        #expect(note.probe == "sign-in" && note.alsoIn == ["refresh", "deadline", "kill-and-relaunch"])
    }

    @Test("a problem seen the same way in several probes is one line that names them all")
    func repeatedProblemIsOneLine() throws {
        let report = try Self.examine("exec python3 -u '\(Self.hostile)/slow_commands.py'")
        let failed = report.problems.filter { $0.check == "sign-in-failed" }
        #expect(failed.count == 1)
        #expect(failed.first?.alsoIn == ["refresh", "deadline", "kill-and-relaunch", "sign-out"])
        #expect(failed.first?.line.contains("(probe sign-in; also refresh, deadline, kill-and-relaunch, sign-out)") == true)
    }

    @Test("the Python example passes in both HTTP modes, and with a request deadline it has no note either",
          arguments: ["", " --http loopback", " --request-timeout 5", " --http loopback --request-timeout 10"])
    func pythonExamplePasses(_ options: String) throws {
        let report = try Self.examine("exec python3 '\(Harness.packageRoot)/Examples/adapters/python/adapter.py'\(options)", timeout: .seconds(60))
        #expect(report.problems.isEmpty, "\(report.problems.map(\.line))")
        #expect(report.probes.allSatisfy { $0.status == .ok })
        let notes = report.diagnoses.map(\.check)
        #expect(notes == (options.contains("timeout") ? [] : ["no-deadline"]))
    }

    @Test("the probes are lint-clean cases of the real spec")
    func probesAreLintClean() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-probes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(DoctorProbes.file).path
        try DoctorProbes.yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let specs = Harness.packageRoot + "/Specs"
        let result = SpecLinter.lint(paths: [file], specRoot: specs)
        #expect(result.errorCount == 0, "\(result.rendered())")
        #expect(DoctorProbes.cases().map(\.id) == ["sign-in", "fresh-after-reset", "refresh", "deadline", "kill-and-relaunch", "sign-out"])
    }

    @Test("every diagnosis names a section that exists in its document")
    func sectionsExist() throws {
        for check in DoctorCheck.allCases {
            let parts = check.section.split(separator: "#", maxSplits: 1).map(String.init)
            let text = try String(contentsOfFile: Harness.packageRoot + "/" + parts[0], encoding: .utf8)
            guard parts.count == 2 else { continue }
            let anchors = text.split(separator: "\n").filter { $0.hasPrefix("#") }.map { heading in
                heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                    .filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }
                    .replacingOccurrences(of: " ", with: "-")
            }
            #expect(anchors.contains(parts[1]), "\(check.rawValue): \(check.section)")
        }
    }
}
