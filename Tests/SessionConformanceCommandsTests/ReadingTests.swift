import Foundation
import SessionConformanceCommands
import SpecModel
import Testing

/// Small reading faults: the commands printed to run again start the way the suite was started, `list` keeps
/// its columns, counts of one are singular.
@Suite("What a user reads")
struct ReadingTests {
    static let binary = Paths.root.appendingPathComponent(".build/debug/session-conformance")

    @Test("the program name is argv[0] as a shell runs it again: PATH names stay, paths become relative and short")
    func programName() {
        let root = Paths.root.path
        #expect(SessionConformance.programName(argv0: "session-conformance", workingDirectory: root) == "session-conformance")
        #expect(SessionConformance.programName(argv0: "/opt/sc/session-conformance", workingDirectory: root) == "/opt/sc/session-conformance")
        #expect(SessionConformance.programName(argv0: root + "/.build/debug/session-conformance", workingDirectory: root)
                == ".build/debug/session-conformance")
        // `swift run` starts .build/<triple>/debug/session-conformance; .build/debug links to it.
        let real = Paths.root.appendingPathComponent(".build/debug").resolvingSymlinksInPath().appendingPathComponent("session-conformance").path
        #expect(SessionConformance.programName(argv0: real, workingDirectory: root) == ".build/debug/session-conformance")
        #expect(SessionConformance.programName(argv0: root + "/session-conformance", workingDirectory: root) == "./session-conformance")
        #expect(SessionConformance.programName(argv0: "/my tools/session-conformance", workingDirectory: root) == "'/my tools/session-conformance'")
    }

    @Test("reproduce lines start with the program as it was started")
    func reproduceUsesTheProgram() {
        let console = BufferConsole()
        let adapter = "exec " + Paths.root.appendingPathComponent(".build/debug/session-conformance-reference-adapter").path + " --variant token-in-log"
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--adapter", adapter,
                                                       "--case", "full-journey-never-leaks-a-token"],
                                           console: console, program: ".build/debug/session-conformance")
        #expect(code == .conformanceFailure)
        #expect(console.stdout.contains("or rerun one case:\n  .build/debug/session-conformance run --adapter "), "\(console.stdout)")
    }

    @Test("the executable names itself as it was started in what it prints")
    func executableNamesItself() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["rnu"]
        process.currentDirectoryURL = Paths.root
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(text.contains("Run '.build/debug/session-conformance --help' for the commands."), "\(text)")
    }

    @Test("list cases keeps its file column aligned, however long the IDs")
    func listColumns() {
        let (code, console) = run("list", "--spec-root", Paths.specs)
        #expect(code == .success)
        let lines = console.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.prefix { $0 != " " }.count > 55 }, "the spec has IDs over 55 characters")
        let columns = Set(lines.map(Self.fileColumn))
        #expect(columns.count == 1, "file columns start at \(columns.sorted())")
    }

    /// Where the second column (the file) starts.
    static func fileColumn(_ line: String) -> Int {
        let id = line.prefix { $0 != " " }
        return id.count + line.dropFirst(id.count).prefix { $0 == " " }.count
    }

    @Test("counts of one are singular")
    func pluralisation() {
        #expect(Plural.count(1, "request") == "1 request")
        #expect(Plural.count(0, "request") == "0 requests")
        #expect(Plural.count(2, "sign-in prompt") == "2 sign-in prompts")
    }
}
