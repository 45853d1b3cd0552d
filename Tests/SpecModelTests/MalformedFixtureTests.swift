import Foundation
import SpecModel
import Testing

/// Every malformed fixture has a `.expected` file beside it holding the whole rendered error text.
/// Paths in the expected text are relative to the Fixtures folder. `UPDATE_FIXTURES=1 swift test` rewrites them.
@Suite("Malformed spec fixtures")
struct MalformedFixtureTests {
    static let fixtures = PackagePaths.malformedFixtures()

    @Test("there are at least 30 malformed fixtures, each with its expected text")
    func fixturesArePresent() {
        #expect(Self.fixtures.count >= 30)
        for fixture in Self.fixtures {
            let expected = fixture.deletingPathExtension().appendingPathExtension("expected")
            #expect(FileManager.default.fileExists(atPath: expected.path), "missing \(expected.lastPathComponent)")
        }
    }

    @Test("each malformed fixture renders exactly its expected errors", arguments: fixtures)
    func rendersExpectedErrors(fixture: URL) throws {
        let result = SpecLinter.lint(paths: [fixture.path], specRoot: PackagePaths.specs.path)
        let rendered = result.rendered().replacingOccurrences(of: PackagePaths.fixtures.path + "/", with: "")
        let expectedURL = fixture.deletingPathExtension().appendingPathExtension("expected")
        if ProcessInfo.processInfo.environment["UPDATE_FIXTURES"] == "1" {
            try rendered.write(to: expectedURL, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(result.errorCount > 0)
        #expect(rendered.hasPrefix("malformed/\(fixture.lastPathComponent):"))
        #expect(rendered == expected)
    }
}
