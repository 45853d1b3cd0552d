import Foundation
import SessionConformanceCommands
import Testing

/// A report handed to `--rerun-failed` is untrusted data (docs/ci.md, "What the suite trusts"): its case IDs
/// are read, and nothing it records is run, opened or printed raw.
@Suite("--rerun-failed never runs, opens or prints raw what a report records")
struct RerunTrustTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rerun-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a report's recorded adapter command is never run: refused (exit 2), shown escaped")
    func recordedCommandIsNotRun() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = directory.appendingPathComponent("ran").path
        let adapter = "touch \(marker); printf \"\u{1B}[31m\r::error::forged\""
        let file = try ForgedReport.write(command: "session-conformance run --adapter '\(adapter)'", in: directory)
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file)
        #expect(code == .specOrUsageError)
        #expect(!FileManager.default.fileExists(atPath: marker), "the report's command ran")
        #expect(console.stderr.contains(#"printf "\e[31m\r::error::forged"'"#), "\(console.stderr)")
        #expect(!console.stderr.contains("\u{1B}") && !console.stderr.contains("\r"), "\(console.stderr)")
        #expect(playedCases(console.stderr).isEmpty)
    }

    @Test("a world path a report records is never opened, with or without --override-report")
    func recordedWorldIsNotRead() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A world "profile" that would print a secret if it were read and its error echoed.
        let secret = directory.appendingPathComponent("secret.yaml").path
        try "SECRET_TOKEN=hunter2\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let file = try ForgedReport.write(command: "session-conformance run --world \(secret)", world: "forged", in: directory)
        let refused = run("run", "--spec-root", Paths.specs, "--rerun-failed", file)
        #expect(refused.code == .specOrUsageError)
        #expect(refused.console.stderr.contains("was made with --world \(secret), not the default world"), "\(refused.console.stderr)")
        let overridden = run("run", "--spec-root", Paths.specs, "--rerun-failed", file, "--override-report")
        #expect(overridden.code == .success, "\(overridden.console.stderr)")
        #expect(playedCases(overridden.console.stderr) == [ForgedReport.failedCase])
        for output in [refused.console, overridden.console] {
            #expect(!(output.stderr + output.stdout).contains("hunter2"))
        }
    }

    @Test("case IDs a report names are shown escaped in the warning about unknown cases")
    func unknownCaseIDsAreEscaped() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try ForgedReport.write(command: "session-conformance run", in: directory)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: "\"\(ForgedReport.failedCase)\"", with: #""x\u001b]0;owned\u0007\r\n::error::y""#)
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (code, console) = run("run", "--spec-root", Paths.specs, "--rerun-failed", file)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains(#"'x\e]0;owned\u{07}\r\n::error::y'"#), "\(console.stderr)")
        #expect(!console.stderr.contains("\u{1B}") && !console.stderr.contains("\r") && !console.stderr.contains("\n::"))
    }
}
