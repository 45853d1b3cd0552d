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

@Suite("explore of a client that never signs in")
struct ExploreNothingTests {
    @Test("a client that speaks another profile explores nothing: explore says so, names the --world that serves it, exits 1")
    func otherProfileExploresNothing() throws {
        let (code, console) = run("explore", "--spec-root", Paths.specs, "--world", "rfc6749", "--variant", "naive-ios",
                                  "--runs", "30", "--no-shrink")
        #expect(code == .conformanceFailure, "\(console.stdout)")
        // It may also have failed before signing in (the port checks an address only for an '@'): that is said first.
        #expect(console.stdout.contains("explore: 30 runs of seed 1 explored nothing: the client reached an authenticated session in none of the "),
                "\(console.stdout)")
        #expect(console.stdout.contains("the client sent POST /auth/login, which the world profile rfc6749 does not serve (json-v1 does): "
            + "if the client speaks json-v1, pass --world json-v1\ncoverage: "), "\(console.stdout)")
        // What was never reached is named: no sign-in, so nothing signed in either.
        #expect(console.stdout.contains("; never: signed-in, "), "\(console.stdout)")
    }

    @Test("the same client under the profile it speaks, and the reference under either, explore something")
    func matchingProfileExplores() {
        let ported = run("explore", "--spec-root", Paths.specs, "--world", "json-v1", "--variant", "naive-ios", "--runs", "30", "--no-shrink")
        #expect(!ported.console.stdout.contains("explored nothing"), "\(ported.console.stdout)")
        #expect(ported.console.stdout.contains("FAIL "), "\(ported.console.stdout)")
        let reference = run("explore", "--spec-root", Paths.specs, "--world", "rfc6749", "--runs", "30", "--no-shrink")
        #expect(reference.code == .success)
        #expect(reference.console.stdout.hasPrefix("explore: 30 runs of seed 1, no failure\ncoverage: "), "\(reference.console.stdout)")
    }
}
