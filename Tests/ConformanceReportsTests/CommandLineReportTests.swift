import ConformanceReports
import Foundation
import SessionConformanceCommands
import Testing

@Suite("Reports on the command line", .serialized)
struct CommandLineReportTests {
    @Test("one run writes all five formats, and each passes its validator", .needs(.xmllint, .chromium, .perl, .jsonschema))
    func oneRunWritesEveryFormat() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let (code, console) = cli("run", "--spec-root", Paths.specs,
                                  "--report", "json=\(path("r.json"))", "--report", "junit=\(path("r.xml"))",
                                  "--report", "markdown=\(path("r.md"))", "--report", "html=\(path("r.html"))",
                                  "--report", "tap=\(path("r.tap"))")
        #expect(code == .success, "\(console.stdout)\(console.stderr)")
        #expect(console.stdout.contains("certification: core certified"))
        for format in ["json", "junit", "markdown", "html", "tap"] {
            #expect(console.stderr.contains("wrote the \(format) report to "))
        }
        let verdicts = try SchemaValidator.validate(files: [path("r.json"): "json"])
        #expect(verdicts["json"]?.hasPrefix("OK ") == true, "\(verdicts)")
        let report = try JSONReportWriter.read(path: path("r.json"))
        #expect(report.gate.passed)
        // The spec root as typed from the working directory: none at all when it is ./Specs.
        let root = WorkingDirectory.relative(Paths.specs)
        #expect(report.run.command == (root == "Specs" ? "session-conformance run" : "session-conformance run --spec-root '\(root)'"))
        let junit = try JUnitSchema.validate(String(contentsOfFile: path("r.xml"), encoding: .utf8))
        #expect(junit.valid, "\(junit.output)")
        let tap = try TAPReportTests.parse(String(contentsOfFile: path("r.tap"), encoding: .utf8))
        #expect(tap["parse_errors"] == "" && tap["failed"] == "0", "\(tap)")
        #expect(try String(contentsOfFile: path("r.md"), encoding: .utf8).hasPrefix("## ✅ session-conformance"))
        let (messages, dom) = try Chromium.load(URL(fileURLWithPath: path("r.html")))
        #expect(messages.isEmpty, "\(messages)")
        #expect(dom.contains("Certified"))
    }

    @Test("the reproduce command keeps what chooses the client: the adapter (quoted), its timeout, the spec root")
    func reproduceCommand() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("r.json").path
        // A spec root outside the working directory stays absolute.
        let specs = directory.appendingPathComponent("Specs").path
        try FileManager.default.copyItem(atPath: Paths.specs, toPath: specs)
        let (code, _) = cli("run", "--spec-root", specs, "--adapter", "echo 'it's gone' >&2; exit 3", "--timeout", "5",
                            "--report", "json=\(json)")
        #expect(code == .adapterNotStarted)
        let report = try JSONReportWriter.read(path: json)
        #expect(report.run.command == #"session-conformance run --adapter 'echo '\''it'\''s gone'\'' >&2; exit 3' --timeout 5 --spec-root '"#
                + specs + "'")
    }

    @Test("--report without a path writes the default file name in the working directory's terms")
    func defaultPaths() throws {
        #expect(try ReportRequest.parse("junit") == ReportRequest(format: .junit, path: "session-conformance-report.junit.xml"))
        #expect(try ReportRequest.parse("html=out/x.html") == ReportRequest(format: .html, path: "out/x.html"))
        #expect(ReportFormat.allCases.map(\.defaultPath) == [
            "session-conformance-report.json", "session-conformance-report.junit.xml", "session-conformance-report.md",
            "session-conformance-report.html", "session-conformance-report.tap", "session-conformance-report.svg",
        ])
    }

    @Test("bad --report, --shard and --trace-limit values are usage errors with a hint", arguments: [
        (["--report", "jsn"], "error: unknown report format 'jsn'\nhint: did you mean 'json'? formats: json, junit, markdown, html, tap, badge\n"),
        (["--report", "json=a.json", "--report", "tap=a.json"], "error: two reports would be written to a.json\n"),
        (["--report", "json="], "error: --report json= needs a path after '='\n"),
        (["--shard", "3/2"], "error: --shard takes I/N with 1 <= I <= N, not '3/2'\nhint: for example --shard 2/4\n"),
        (["--trace-limit", "-1"], "error: --trace-limit must be 0 (no limit) or more\n"),
    ])
    func usageErrors(arguments: [String], message: String) {
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs] + arguments, console: console)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix(message), "\(console.stderr)")
    }

    @Test("--expected-failures: a broken file exits 2 with located errors; a stale entry exits 1 unless allowed")
    func expectedFailuresOption() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appendingPathComponent("broken.yaml")
        try "- id: NO-SUCH-THING\n  reason: x\n".write(to: broken)
        let (brokenCode, brokenConsole) = cli("run", "--spec-root", Paths.specs, "--expected-failures", broken.path)
        #expect(brokenCode == .specOrUsageError)
        #expect(brokenConsole.stderr.hasPrefix("\(broken.path):1:7: error: 'NO-SUCH-THING' is neither a requirement nor a case"))
        let stale = directory.appendingPathComponent("stale.yaml")
        try "- id: rapid-switching\n  reason: was broken\n".write(to: stale)
        let (strictCode, strictConsole) = cli("run", "--spec-root", Paths.specs, "--expected-failures", stale.path)
        #expect(strictCode == .conformanceFailure)
        #expect(strictConsole.stdout.contains("rapid-switching: now passes (the gate fails"))
        let (lenientCode, _) = cli("run", "--spec-root", Paths.specs, "--expected-failures", stale.path, "--allow-unexpected-passes")
        #expect(lenientCode == .success)
    }

    @Test("run --shard and merge on the command line give the unsharded report; a missing shard exits 2")
    func shardAndMerge() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        for index in 1...3 {
            let (code, console) = cli("run", "--spec-root", Paths.specs, "-k", "sign-out", "--shard", "\(index)/3",
                                      "--report", "json=\(path("s\(index).json"))")
            #expect(code == .success, "\(console.stdout)")
            #expect(console.stdout.contains("shard \(index)/3: "))
        }
        // The cases whose ID contains "sign-out": the CLI's shard and merge are what is tested, not every case.
        let (whole, _) = cli("run", "--spec-root", Paths.specs, "-k", "sign-out", "--report", "json=\(path("whole.json"))")
        #expect(whole == .success)
        let (code, console) = cli("merge", path("s3.json"), path("s1.json"), path("s2.json"),
                                  "--report", "json=\(path("merged.json"))", "--report", "html=\(path("merged.html"))")
        #expect(code == .success, "\(console.stderr)")
        #expect(console.stderr.contains("certification: core incomplete"), "a selection certifies nothing")
        let merged = try JSONReportWriter.read(path: path("merged.json"))
        let unsharded = try JSONReportWriter.read(path: path("whole.json"))
        #expect(merged.removingWallClock() == unsharded.removingWallClock())
        #expect(FileManager.default.fileExists(atPath: path("merged.html")))
        let (stdoutCode, stdoutConsole) = cli("merge", path("s1.json"), path("s2.json"), path("s3.json"))
        #expect(stdoutCode == .success)
        #expect(try JSONReportWriter.read(stdoutConsole.stdout).removingWallClock() == unsharded.removingWallClock())
        let (missingCode, missingConsole) = cli("merge", path("s1.json"), path("s3.json"))
        #expect(missingCode == .specOrUsageError)
        #expect(missingConsole.stderr == "merge: shard 2/3 missing: merge needs all 3 shard reports\n")
    }

    @Test("diff exits 1 on a regression, 0 without, 2 on a file that is not a report")
    func diffExitCodes() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        let bad = directory.appendingPathComponent("bad.json")
        try JSONReportWriter.render(Runs.shared.reference).write(to: good)
        try JSONReportWriter.render(Runs.shared.defective).write(to: bad)
        let (regression, console) = cli("diff", good.path, bad.path)
        #expect(regression == .conformanceFailure)
        #expect(console.stdout.contains("regressions ("))
        #expect(console.stdout.hasSuffix("regressions\n"))
        let (fixed, fixedConsole) = cli("diff", bad.path, good.path)
        #expect(fixed == .success)
        #expect(fixedConsole.stdout.hasSuffix("result: no regression\n"))
        let (notAReport, errorConsole) = cli("diff", good.path, directory.appendingPathComponent("missing.json").path)
        #expect(notAReport == .specOrUsageError)
        #expect(errorConsole.stderr.hasPrefix("error: cannot read "))
        let (usage, _) = cli("diff", good.path)
        #expect(usage == .specOrUsageError)
    }

    @Test("--help documents the report options and the diff and merge commands")
    func help() {
        let (_, run) = cli("run", "--help")
        for option in ["--report FORMAT[=PATH]", "--expected-failures FILE", "--allow-unexpected-passes", "--shard I/N", "--trace-limit N"] {
            #expect(run.stdout.contains(option), "run --help lacks \(option)")
        }
        let (_, overview) = cli("--help")
        #expect(overview.stdout.contains("  diff ") && overview.stdout.contains("  merge "))
        let (_, diff) = cli("diff", "--help")
        #expect(diff.stdout.contains("USAGE: session-conformance diff OLD.json NEW.json"))
        let (_, merge) = cli("merge", "--help")
        #expect(merge.stdout.contains("USAGE: session-conformance merge SHARD.json..."))
    }
}
