import Foundation

/// Paths inside the package, found from this file so tests do not depend on the working directory.
enum PackagePaths {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let specs = root.appendingPathComponent("Specs")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let malformed = fixtures.appendingPathComponent("malformed")

    /// The malformed fixtures, sorted by name.
    static func malformedFixtures() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: malformed.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { malformed.appendingPathComponent($0) }
    }
}
