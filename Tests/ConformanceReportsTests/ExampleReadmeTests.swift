import ConformanceReports
import Foundation
import SpecModel
import Testing

/// Every example adapter's README tells the truth about its expected verdicts: the `expected.yaml` beside it
/// (what Examples/adapters/check.sh compares the run with). The README says it on one line:
///
///     Expected verdicts: every requirement passes (`expected.yaml` is empty).
///     Expected verdicts: fails REFRESH-SINGLE-FLIGHT, CACHE-CLEAR-ON-SWITCH; warns on SIGNOUT-REVOCATION-RETRY (...).
///
/// `fails` names MUST requirements, `warns on` SHOULD ones, `leaves untested` any; together exactly the IDs
/// expected.yaml lists. Nowhere may a README whose expected.yaml lists entries say it passes everything, nor
/// name a requirement expected.yaml lists under a heading about passes ("### Notable passes").
@Suite("Example READMEs and their expected.yaml")
struct ExampleReadmeTests {
    static let examples = Paths.root.appendingPathComponent("Examples/adapters")
    static let prefix = "Expected verdicts: "
    static let passesEverything = "every requirement passes"
    /// Claims that the example passes everything, wherever they stand in a README.
    static let claimsOfPassing = ["passes every requirement", "every requirement passes", "passes everything",
                                  "`expected.yaml` is empty", "expected.yaml is empty"]

    /// The example folders: those with an expected.yaml.
    static func folders() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted()
            .map { examples.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("expected.yaml").path) }
    }

    /// What a README's `Expected verdicts:` line says, or why it cannot be read: the IDs by verb.
    struct Statement: Equatable {
        var passesEverything = false
        var ids: [String: [String]] = [:]   // verb -> IDs
    }

    static func statement(_ readme: String) -> Result<Statement, Problem> {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix(prefix) }
        guard lines.count == 1, let line = lines.first else {
            return .failure(Problem("has \(lines.count) lines starting '\(prefix)'; it needs exactly one"))
        }
        // The verdicts come before the first parenthesis; what follows is commentary.
        let said = line.dropFirst(prefix.count).prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters))
        if said == passesEverything { return .success(Statement(passesEverything: true)) }
        var statement = Statement()
        for clause in said.split(separator: ";") {
            let clause = clause.trimmingCharacters(in: .whitespaces)
            guard let verb = ["fails", "warns on", "leaves untested"].first(where: { clause.hasPrefix($0 + " ") }) else {
                return .failure(Problem("says '\(clause)': each clause starts 'fails', 'warns on' or 'leaves untested', or the line is '\(prefix)\(passesEverything)'"))
            }
            let ids = clause.dropFirst(verb.count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            statement.ids[verb, default: []] += ids
        }
        return .success(statement)
    }

    struct Problem: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Every way `readme` disagrees with the expected failures it stands beside.
    static func problems(readme: String, expected: [String], levels: [String: RequirementLevel]) -> [String] {
        var problems: [String] = []
        if !expected.isEmpty {
            let lowered = readme.lowercased()
            for claim in claimsOfPassing where lowered.contains(claim.lowercased()) {
                problems.append("says '\(claim)', but expected.yaml lists \(expected.count): \(expected.joined(separator: ", "))")
            }
        }
        for (heading, id) in idsUnderPassHeadings(readme) where expected.contains(id) {
            problems.append("names \(id) under '\(heading)', but expected.yaml lists it")
        }
        switch statement(readme) {
        case .failure(let problem):
            problems.append(problem.description)
        case .success(let statement) where statement.passesEverything:
            break   // with entries in expected.yaml, the claims above already count it
        case .success(let statement):
            let named = statement.ids.values.flatMap { $0 }
            for id in named where !expected.contains(id) {
                problems.append("names \(id) as not passing; expected.yaml does not list it")
            }
            for id in expected where !named.contains(id) {
                problems.append("does not name \(id), which expected.yaml lists")
            }
            for id in statement.ids["fails"] ?? [] where levels[id].map({ $0 != .must }) == true {
                problems.append("says it fails \(id), a \(levels[id]!.rawValue) requirement: only a MUST fails (a SHOULD warns)")
            }
            for id in statement.ids["warns on"] ?? [] where levels[id].map({ $0 != .should }) == true {
                problems.append("says it warns on \(id), a \(levels[id]!.rawValue) requirement: only a SHOULD warns")
            }
            if named.isEmpty { problems.append("names no requirement; say '\(prefix)\(passesEverything)' instead") }
        }
        return problems
    }

    /// The requirement IDs in each section whose heading speaks of passes, with the heading.
    static func idsUnderPassHeadings(_ readme: String) -> [(heading: String, id: String)] {
        var found: [(String, String)] = []
        var heading: String?
        var fenced = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            if fenced { continue }
            if line.hasPrefix("#") {
                heading = line.lowercased().contains("pass") ? String(line) : nil
                continue
            }
            guard let heading else { continue }
            for match in line.matches(of: /[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/) {
                found.append((heading, String(match.output)))
            }
        }
        return found
    }

    @Test("each example README's 'Expected verdicts:' line names exactly what its expected.yaml lists, and none claims to pass everything unless it does")
    func readmesTellTheTruth() throws {
        let bundle = try Runs.bundle()
        let levels = Dictionary(uniqueKeysWithValues: bundle.requirements.map { ($0.id, $0.level) })
        let folders = try Self.folders()
        #expect(folders.count >= 5, "\(folders.map(\.lastPathComponent))")
        for folder in folders {
            let name = folder.lastPathComponent
            let expected = try ExpectedFailures.load(path: folder.appendingPathComponent("expected.yaml").path, bundle: bundle)
            let readme = try String(contentsOf: folder.appendingPathComponent("README.md"), encoding: .utf8)
            let problems = Self.problems(readme: readme, expected: expected.entries.map(\.id), levels: levels)
            #expect(problems.isEmpty, "Examples/adapters/\(name)/README.md:\n  \(problems.joined(separator: "\n  "))")
        }
    }

    @Test("the check catches a README that claims a clean run, names a requirement expected.yaml does not list, or calls a SHOULD a failure")
    func catchesUntruths() {
        let levels: [String: RequirementLevel] = ["A-MUST": .must, "B-MUST": .must, "C-SHOULD": .should]
        let clean = "# x\n\nExpected verdicts: every requirement passes (`expected.yaml` is empty).\n"
        #expect(Self.problems(readme: clean, expected: [], levels: levels).isEmpty)
        #expect(Self.problems(readme: clean, expected: ["A-MUST"], levels: levels) == [
            "says 'every requirement passes', but expected.yaml lists 1: A-MUST",
            "says '`expected.yaml` is empty', but expected.yaml lists 1: A-MUST",
        ])
        let failing = "It passes every requirement but one.\nExpected verdicts: fails A-MUST, B-MUST; warns on C-SHOULD (expected.yaml).\n"
        #expect(Self.problems(readme: failing, expected: ["A-MUST", "C-SHOULD"], levels: levels) == [
            "says 'passes every requirement', but expected.yaml lists 2: A-MUST, C-SHOULD",
            "names B-MUST as not passing; expected.yaml does not list it",
        ])
        let wrongVerb = "Expected verdicts: fails A-MUST, C-SHOULD.\n"
        #expect(Self.problems(readme: wrongVerb, expected: ["A-MUST", "C-SHOULD", "B-MUST"], levels: levels) == [
            "does not name B-MUST, which expected.yaml lists",
            "says it fails C-SHOULD, a SHOULD requirement: only a MUST fails (a SHOULD warns)",
        ])
        let passesSection = "Expected verdicts: fails A-MUST (expected.yaml).\n### Fails\nA-MUST\n### Notable passes\n| A-MUST, B-MUST | why |\n### Obstacles\nA-MUST again\n"
        #expect(Self.problems(readme: passesSection, expected: ["A-MUST"], levels: levels) == [
            "names A-MUST under '### Notable passes', but expected.yaml lists it",
        ])
        #expect(Self.problems(readme: "no line\n", expected: [], levels: levels) == ["has 0 lines starting 'Expected verdicts: '; it needs exactly one"])
    }
}
