import Foundation
import SessionConformanceCommands
import Testing

@Suite("--world")
struct WorldOptionTests {
    static let malformedWorld = Paths.malformed.appendingPathComponent("world-shared-path-without-grant-type.yaml").path

    @Test("run --world rfc6749 runs the reference under the shipped profile and says so first")
    func runByName() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--world", "rfc6749", "--filter", "launch-with-valid-session")
        #expect(code == .success, "\(console.stderr)")
        #expect(console.stdout.split(separator: "\n").prefix(2).contains("world: rfc6749"))
    }

    @Test("run --world FILE reads a profile file; its errors render in compiler form and the run does not start")
    func runWithMalformedFile() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--world", Self.malformedWorld)
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("\(Self.malformedWorld):6:3: error: sign-in and refresh share the path '/api/token'"))
        #expect(console.stderr.hasSuffix("run: the world profile \(Self.malformedWorld) has errors\n"))
        #expect(console.stdout == "")
    }

    @Test("run --world with an unknown name lists the spec's profiles")
    func runWithUnknownName() {
        let (code, console) = run("run", "--spec-root", Paths.specs, "--world", "rfc6750")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("error: no world profile 'rfc6750': not a file, and the spec's worlds are json-v1, rfc6749\n"))
    }

    @Test("lint checks the spec's worlds, and a --world file too")
    func lintWorlds() {
        let clean = run("lint", Paths.specs)
        #expect(clean.code == .success)
        #expect(clean.console.stdout.contains("worlds: 2 (json-v1, rfc6749)"))
        let (code, console) = run("lint", Paths.specs, "--world", Self.malformedWorld, "--quiet")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("\(Self.malformedWorld):6:3: error:"))
        #expect(console.stderr.hasSuffix("lint: 3 errors in 1 file\n"))
    }
}
