import Foundation
import PythonRunner
import Testing

/// scripts/follow-tutorial.py, which CI runs over each first-hour tutorial of docs/porting-guide.md: it must do what
/// each marker says, and fail, naming the guide's line, on a step that does not.
@Suite("Following a tutorial")
struct FollowTutorialTests {
    static let script = Paths.root.appendingPathComponent("scripts/follow-tutorial.py").path

    /// `guide` written to a file, followed for the language `toy` with the debug build's folder as the CLI's.
    static func follow(_ guide: String, language: String = "toy") throws -> (status: Int32, stdout: String, stderr: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        try guide.write(to: file, atomically: true, encoding: .utf8)
        return try Python.run([script, language, "--guide", file.path, "--discard",
                               "--binary", Paths.root.appendingPathComponent(".build/debug").path])
    }

    static let passing = """
        # Toy

        <!-- tutorial toy: file notes/hello.txt -->
        ```text
        hello from path/to/session-conformance
        ```

        <!-- tutorial other: run -->
        ```sh
        exit 9
        ```

        <!-- tutorial toy: run, prints "hello from /" -->
        ```sh
        cat notes/hello.txt
        command -v session-conformance
        ```

        <!-- tutorial toy: run, exits 3 -->
        ```sh
        exit 3
        ```
        """

    @Test("files are written and run blocks run in one empty folder, in order, with the CLI on PATH and the checkout's path filled in")
    func followsEveryStep() throws {
        let result = try Self.follow(Self.passing)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("toy: 3 steps, every one as the guide says"), "\(result.stdout)")
    }

    @Test("a step that exits otherwise than its marker says fails with the guide's line, the step and its output")
    func wrongExitFails() throws {
        let result = try Self.follow(Self.passing.replacingOccurrences(of: "exit 3", with: "echo oops; exit 4"))
        #expect(result.status == 1)
        #expect(result.stderr.contains(":19: error: step 3 exited 4, expected 3"), "\(result.stderr)")
        #expect(result.stderr.contains("oops"))
    }

    @Test("a step whose output lacks what the marker says it prints fails")
    func missingOutputFails() throws {
        let result = try Self.follow(Self.passing.replacingOccurrences(of: "prints \"hello from /\"", with: "prints \"goodbye\""))
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: step 2 did not print \"goodbye\""), "\(result.stderr)")
    }

    @Test("a language with no tutorial is a usage error, and so is a marker with an unknown option")
    func usageErrors() throws {
        #expect(try Self.follow(Self.passing, language: "cobol").status == 2)
        let unknown = try Self.follow(Self.passing.replacingOccurrences(of: "run, exits 3", with: "run, retries 3"))
        #expect(unknown.stderr.contains("error: unknown option \"retries 3\""), "\(unknown.stderr)")
        #expect(unknown.status == 2)
    }

    @Test("the porting guide has a tutorial for each kit's language and Swift")
    func guideHasEveryTutorial() throws {
        let guide = try String(contentsOf: Paths.root.appendingPathComponent("docs/porting-guide.md"), encoding: .utf8)
        for language in ["python", "javascript", "jvm", "swift"] {
            #expect(guide.contains("<!-- tutorial \(language): run"), "\(language)")
        }
    }
}
