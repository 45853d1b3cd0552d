import ConformanceRunner
import Foundation
import Mutants
import SpecModel
import Testing

/// docs/violation-matrix.md stays in step with the requirements catalogue, the cases, the oracles and the mutant
/// registry: what it claims catches a violation is charged to that requirement, and what it claims proves the catcher
/// is a variant the kill matrix rejects on that requirement.
@Suite("Violation matrix")
struct ViolationMatrixTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Row {
        let requirement: String
        let line: Int
        let catchers: [String]
        let variant: String?
    }

    struct Matrix {
        var sections: [(id: String, level: String)] = []
        var rows: [Row] = []
        var text = ""
    }

    static func backticked(_ cell: Substring) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func matrix() throws -> Matrix {
        let text = try String(contentsOf: root.appendingPathComponent("docs/violation-matrix.md"), encoding: .utf8)
        var matrix = Matrix(text: text)
        var current: String?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("## ") {
                let words = line.dropFirst(3).split(separator: " ")
                if words.count == 2, words[1].hasPrefix("("), words[1].hasSuffix(")") {
                    current = String(words[0])
                    matrix.sections.append((String(words[0]), String(words[1].dropFirst().dropLast())))
                } else {
                    current = nil
                }
                continue
            }
            guard let requirement = current, line.hasPrefix("| "), !line.hasPrefix("| broken by"), !line.hasPrefix("| ---") else { continue }
            // The text of a row may quote code with a '|' in it; the last three cells never do.
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let catcherCell = Substring(cells[cells.count - 3])
            let variantCell = Substring(cells[cells.count - 2])
            matrix.rows.append(Row(requirement: requirement, line: number + 1,
                                   catchers: catcherCell == "none" ? [] : backticked(catcherCell),
                                   variant: variantCell == "gap" ? nil : backticked(variantCell).first))
        }
        return matrix
    }

    static func bundle() throws -> SpecBundle {
        let specs = root.appendingPathComponent("Specs").path
        let lint = SpecLinter.lint(paths: [specs], specRoot: specs)
        try #require(lint.errorCount == 0, "Specs/ must lint clean:\n\(lint.rendered())")
        return lint.bundle
    }

    @Test("it has a section for exactly the MUST and SHOULD requirements, in the catalogue's order, each with a row")
    func sectionsFollowTheCatalogue() throws {
        let matrix = try Self.matrix()
        let catalogue = try #require(try Self.bundle().catalogue)
        let judged = catalogue.requirements.filter { $0.level == .must || $0.level == .should }
        #expect(matrix.sections.map(\.id) == judged.map(\.id))
        #expect(matrix.sections.map(\.level) == judged.map(\.level.rawValue))
        for section in matrix.sections {
            #expect(matrix.rows.contains { $0.requirement == section.id }, "\(section.id) has no row")
        }
    }

    @Test("every case or oracle a row names exists and is charged to the row's requirement")
    func catchersChargeTheirRequirement() throws {
        let matrix = try Self.matrix()
        let cases = Dictionary(try Self.bundle().cases.map { ($0.id, Set($0.requirements.map(\.value))) }) { first, _ in first }
        let oracles = Dictionary(Oracles.charges.map { ($0.id, Set($0.requirements)) }) { first, _ in first }
        for row in matrix.rows {
            for catcher in row.catchers {
                let charged = cases[catcher] ?? oracles[catcher]
                #expect(charged != nil, "line \(row.line): '\(catcher)' is neither a case nor an oracle")
                #expect(charged.map { $0.contains(row.requirement) } != false,
                        "line \(row.line): '\(catcher)' is not charged to \(row.requirement)")
            }
        }
    }

    @Test("every variant a row names fails the row's requirement, and every variant proves a row")
    func variantsProveTheirRows() throws {
        let matrix = try Self.matrix()
        for row in matrix.rows {
            guard let name = row.variant else { continue }
            let mutant = MutantRegistry.named(name)
            #expect(mutant != nil, "line \(row.line): no variant '\(name)'")
            #expect(mutant.map { $0.documentedFailures.contains(row.requirement) } != false,
                    "line \(row.line): '\(name)' is not rejected on \(row.requirement)")
        }
        let proving = Set(matrix.rows.compactMap(\.variant))
        #expect(MutantRegistry.all.map(\.name).filter { !proving.contains($0) } == [])
    }

    @Test("the gaps it states are the rows with no variant, and the rows with no catcher")
    func gapsAreCounted() throws {
        let matrix = try Self.matrix()
        let gaps = matrix.rows.filter { $0.variant == nil }
        let uncaught = matrix.rows.filter(\.catchers.isEmpty)
        #expect(matrix.text.contains("The matrix has \(gaps.count) \(gaps.count == 1 ? "gap" : "gaps"), \(uncaught.count) of them with no catcher."))
        // A row with no catcher has no variant either: a variant that fails it would be caught by something.
        #expect(uncaught.allSatisfy { $0.variant == nil })
    }
}
