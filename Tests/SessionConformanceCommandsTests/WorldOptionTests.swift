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

    @Test("explore --world FILE with errors renders them as run does, names explore, and explores nothing")
    func exploreWithMalformedFile() {
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--world", Self.malformedWorld, "--runs", "5")
        #expect(code == .specOrUsageError)
        #expect(console.stderr.hasPrefix("\(Self.malformedWorld):6:3: error: sign-in and refresh share the path '/api/token'"))
        #expect(console.stderr.hasSuffix("explore: the world profile \(Self.malformedWorld) has errors\n"))
        #expect(console.stdout == "")
    }

    @Test("explore --world NAME explores under that profile and its replay command carries the option, unquoted")
    func exploreReplayCarriesTheWorld() throws {
        let (_, console) = run("explore", "--spec-root", Paths.specs, "--world", "rfc6749", "--variant", "refresh-per-request",
                               "--runs", "60", "--no-shrink")
        let replay = try #require(console.stdout.split(separator: "\n").first { $0.contains("replay:") }, "\(console.stdout)")
        #expect(replay.hasSuffix("--world rfc6749 --variant refresh-per-request"), "\(replay)")
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
