import ConformanceReports
import Foundation
import SessionConformanceCommands
import Testing

/// What the commands do with report paths: a report goes to a regular file or standard output, a path they
/// cannot write fails the command (exit 2) and says why, and a report too large to read is refused at once.
@Suite("Report paths on the command line")
struct ReportPathTests {
    typealias Folder = ReportFileTests.Folder

    /// `run` over one case of the in-process reference, with these options.
    static func run(_ options: String...) -> (code: ExitCode, console: BufferConsole) {
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--case", "launch-with-valid-session"] + options,
                                           console: console)
        return (code, console)
    }

    @Test("run: a report to a FIFO or a folder fails the run (exit 2) and says why; the other reports are written")
    func unwritableReportFailsTheRun() throws {
        let folder = try Folder()
        let fifo = try folder.fifo("pipe")
        try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: false)
        let (code, console) = Self.run("--report", "json=\(fifo)", "--report", "tap=\(folder.path("out"))",
                                       "--report", "junit=\(folder.path("r.xml"))")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: cannot write the json report to \(fifo): it is a FIFO (named pipe); "
                                        + "a report is written to a regular file only\n"), "\(console.stderr)")
        #expect(console.stderr.contains("error: cannot write the tap report to \(folder.path("out")): it is a folder; "
                                        + "a report is written to a regular file only\n"))
        #expect(console.stderr.contains("wrote the junit report to \(folder.path("r.xml"))\n"))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(try folder.fileType("out") == .typeDirectory)
    }

    @Test("run: a report to a symbolic link writes the file it names and keeps the link")
    func reportThroughASymbolicLink() throws {
        let folder = try Folder()
        try FileManager.default.createSymbolicLink(atPath: folder.path("latest.json"), withDestinationPath: "run-1.json")
        let (code, console) = Self.run("--report", "json=\(folder.path("latest.json"))")
        #expect(code == .success, "\(console.stderr)")
        #expect(try folder.fileType("latest.json") == .typeSymbolicLink)
        #expect(try JSONReportWriter.read(path: folder.path("run-1.json")).cases.map(\.id) == ["launch-with-valid-session"])
    }

    @Test("run: a report under a path that cannot be a folder fails the run with the reason")
    func reportUnderAFile() throws {
        let folder = try Folder()
        try "plain".write(to: folder.url.appendingPathComponent("file"))
        let target = folder.path("file/report.json")
        let (code, console) = Self.run("--report", "json=\(target)")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: cannot write the json report to \(target): \(folder.path("file")) is not a folder\n"),
                "\(console.stderr)")
    }

    @Test("run: --write-expected-failures to a folder fails the run and says why")
    func expectedFailuresToAFolder() throws {
        let folder = try Folder()
        let (code, console) = Self.run("--write-expected-failures", folder.url.path)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: cannot write the expected failures to \(folder.url.path): it is a folder; "
                                        + "a report is written to a regular file only\n"), "\(console.stderr)")
    }

    @Test("run: --report json=- and json=/dev/stdout write the report to standard output and the summary to standard error",
          arguments: ["-", "/dev/stdout"])
    func reportToStandardOutput(path: String) throws {
        let (code, console) = Self.run("--report", "json=\(path)")
        #expect(code == .success, "\(console.stderr)")
        let report = try JSONReportWriter.read(console.stdout)
        #expect(report.cases.map(\.id) == ["launch-with-valid-session"])
        #expect(console.stderr.contains("launch-with-valid-session"), "\(console.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "-"))
    }

    @Test("two outputs for standard output are a usage error")
    func twoOutputsForStandardOutput() {
        let reports = Self.run("--report", "json=-", "--report", "tap=/dev/stdout")
        #expect(reports.code == .specOrUsageError)
        #expect(reports.console.stderr.hasPrefix("error: two reports would be written to standard output\n"))
        let mixed = Self.run("--report", "json=-", "--write-expected-failures", "-")
        #expect(mixed.code == .specOrUsageError)
        #expect(mixed.console.stderr.hasPrefix("error: two files would be written to standard output\n"))
    }

    @Test("merge: a merged report to a FIFO fails (exit 2) and says why")
    func mergeToAFIFO() throws {
        let folder = try Folder()
        let shard = folder.path("shard.json")
        #expect(Self.run("--shard", "1/1", "--report", "json=\(shard)").code == .success)
        let fifo = try folder.fifo("pipe")
        let (code, console) = cli("merge", shard, "--report", "json=\(fifo)")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: cannot write the json report to \(fifo): it is a FIFO (named pipe)"), "\(console.stderr)")
    }

    @Test("explore: a report to a FIFO fails (exit 2) and says why")
    func exploreToAFIFO() throws {
        let folder = try Folder()
        let fifo = try folder.fifo("pipe")
        let (code, console) = cli("explore", "--spec-root", Paths.specs, "--runs", "2", "--report", "json=\(fifo)")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.contains("error: cannot write the json report to \(fifo): it is a FIFO (named pipe)"), "\(console.stderr)")
    }

    /// A sparse file one byte over the limit: no disk space, refused from its size alone.
    static func oversizeReport(in folder: Folder) throws -> String {
        let path = folder.path("huge.json")
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(ReportFile.readLimit + 1))
        try handle.close()
        return path
    }

    @Test("merge, diff and --rerun-failed refuse a report over the size limit at once, naming the limit")
    func oversizeReports() throws {
        let folder = try Folder()
        let huge = try Self.oversizeReport(in: folder)
        let reason = "cannot read \(huge): it is larger than 64 MiB, the most a report may be (67108865 bytes)"
        let merge = cli("merge", huge)
        #expect(merge.code == .specOrUsageError)
        #expect(merge.console.stderr == "error: \(reason)\n")
        let diff = cli("diff", huge, huge)
        #expect(diff.code == .specOrUsageError)
        #expect(diff.console.stderr == "error: \(reason)\n")
        let rerun = cli("run", "--spec-root", Paths.specs, "--rerun-failed", huge)
        #expect(rerun.code == .specOrUsageError)
        #expect(rerun.console.stderr.hasPrefix("error: --rerun-failed needs a JSON report: \(reason)\n"), "\(rerun.console.stderr)")
    }

    @Test("a report path that cannot be read says so with the system's words")
    func unreadableReport() throws {
        let folder = try Folder()
        let missing = folder.path("missing.json")
        let diff = cli("diff", missing, missing)
        #expect(diff.console.stderr == "error: cannot read \(missing): No such file or directory\n")
        let merge = cli("merge", folder.url.path)
        #expect(merge.console.stderr == "error: cannot read \(folder.url.path): it is a folder; only a regular file is read\n")
    }
}
