import Foundation
@testable import SessionConformanceCommands
import Testing

@Suite("The default spec root")
struct DefaultSpecRootTests {
    @Test("Specs/ in the working directory wins over the bundled one")
    func workingDirectoryFirst() {
        let root = DefaultSpecRoot.resolve(isDirectory: { ["Specs", "/opt/sc/Specs"].contains($0) }, executableDirectory: "/opt/sc")
        #expect(root == "Specs")
    }

    @Test("without Specs/ in the working directory, the Specs/ beside the executable is used (the release archive)")
    func bundledNextToExecutable() {
        let root = DefaultSpecRoot.resolve(isDirectory: { $0 == "/opt/sc/Specs" }, executableDirectory: "/opt/sc")
        #expect(root == "/opt/sc/Specs")
    }

    @Test("with neither, the default stays Specs, so the missing folder is reported by its usual name")
    func neither() {
        #expect(DefaultSpecRoot.resolve(isDirectory: { _ in false }, executableDirectory: "/opt/sc") == "Specs")
    }

    @Test("a source-built executable, run outside its checkout, uses the Specs/ of the checkout that holds its .build")
    func checkoutOfASourceBuild() {
        let directory = "/home/dev/session-conformance/.build/x86_64-unknown-linux-gnu/debug"
        #expect(DefaultSpecRoot.checkout(of: directory) == "/home/dev/session-conformance")
        #expect(DefaultSpecRoot.checkout(of: "/opt/sc") == nil)
        let root = DefaultSpecRoot.resolve(isDirectory: { $0 == "/home/dev/session-conformance/Specs" }, executableDirectory: directory)
        #expect(root == "/home/dev/session-conformance/Specs")
    }

    @Test("with no spec folder anywhere, the error says where it looked and names --spec-root")
    func missingNamesTheFlag() {
        let error = DefaultSpecRoot.missing(workingDirectory: "/tmp/team", executableDirectory: "/opt/sc")
        #expect(error.message == "no spec folder: no Specs/ in the working directory (/tmp/team), beside the executable (/opt/sc) or in a checkout it was built in")
        #expect(error.hint == "pass --spec-root DIR: the Specs folder of the suite's checkout or of its release archive")
    }

    @Test("the CLI copied out of its checkout and run elsewhere exits 2 naming --spec-root; run from its .build, it finds the checkout's specs")
    func commandsWorkFromAnywhere() throws {
        let executable = Paths.root.appendingPathComponent(".build/debug/session-conformance")
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build the executable first")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = try LaunchedProcess.copyCLI(into: folder)
        func run(_ binary: URL, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try LaunchedProcess.run(binary, arguments, in: folder)
        }
        for command in [["run"], ["lint"], ["list"], ["explore", "--runs", "1"], ["mutants", "--variant", "token-in-log"]] {
            let lost = try run(alone, command)
            #expect(lost.status == 2, "\(command): \(lost.stderr)")
            #expect(lost.stderr.contains("error: no spec folder: no Specs/ in the working directory ("), "\(command): \(lost.stderr)")
            #expect(lost.stderr.contains("hint: pass --spec-root DIR"), "\(command): \(lost.stderr)")
        }
        let built = try run(executable, ["list", "requirements"])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stdout.contains("REFRESH-SINGLE-FLIGHT"))
    }
}
