import ConformanceReports
import Foundation
import Testing

/// Every failure is shown with the requirement's statement and the design's verbatim words, with the
/// document they come from, in every format.
@Suite("The design's words next to every failure")
struct DesignWordsTests {
    /// A failed requirement of the defective run, with its quotes from the catalogue.
    static func failed() throws -> (report: ComplianceReport, requirement: RequirementReport) {
        let report = Runs.shared.defective
        let requirement = try #require(report.requirements.first { $0.status == .fail && !$0.quotes.isEmpty })
        return (report, requirement)
    }

    /// The start of a quote up to its first character that a format escapes, for a format-neutral check.
    static func plainStart(_ text: String) -> String {
        String(FailureText.oneLine(text).prefix { $0.isLetter || $0.isNumber || $0 == " " || $0 == "," || $0 == "." }.prefix(40))
    }

    @Test("JSON: every requirement carries its quotes, each with its document, as the catalogue has them")
    func json() throws {
        let report = Runs.shared.defective
        let catalogue = try #require(try Runs.bundle().catalogue)
        for requirement in report.requirements {
            let sources = try #require(catalogue.requirement(requirement.id)).sources
            #expect(requirement.quotes == sources.map { QuoteReport(document: $0.document.value, quote: $0.text) })
        }
        let json = JSONReportWriter.value(report)
        for requirement in json["requirements"]?.array ?? [] {
            #expect(requirement["quotes"]?.array != nil, "\(requirement["id"]?.string ?? "?") has no quotes key")
        }
        let (_, failed) = try Self.failed()
        let quote = try #require(json["requirements"]?.array?.first { $0["id"]?.string == failed.id }?["quotes"]?.array?.first)
        #expect(quote["document"]?.string == failed.quotes[0].document)
        #expect(quote["quote"]?.string == failed.quotes[0].quote)
        #expect(failed.quotes[0].document.hasSuffix(".txt"))
    }

    @Test("console: the failed requirement's statement and each quote with its document")
    func console() throws {
        let (report, requirement) = try Self.failed()
        let text = TextSummaryWriter.render(report)
        #expect(text.contains("\nFAIL MUST \(requirement.id): \(requirement.title)\n  requirement: \(FailureText.oneLine(requirement.statement))\n"))
        for quote in requirement.quotes {
            #expect(text.contains("  design (\(quote.document)): \"\(FailureText.oneLine(quote.quote))\"\n"))
        }
    }

    @Test("JUnit: the failure text has the statement, each quote and its document")
    func junit() throws {
        let (report, requirement) = try Self.failed()
        let xml = JUnitReportWriter.render(report)
        let start = try #require(xml.range(of: "<testcase classname=\"requirements.MUST\" name=\"\(requirement.id): "))
        let element = String(xml[start.lowerBound...]).components(separatedBy: "</testcase>")[0]
        #expect(element.contains("<failure "))
        #expect(element.contains("The design's words:"))
        for quote in requirement.quotes {
            #expect(element.contains("(\(quote.document))"))
            #expect(element.contains(Self.plainStart(quote.quote)))
        }
    }

    @Test("Markdown: the failure block quotes the design with the document")
    func markdown() throws {
        let (report, requirement) = try Self.failed()
        let markdown = MarkdownReportWriter.render(report)
        let block = try #require(markdown.components(separatedBy: "<details><summary>").first { $0.contains("<code>\(requirement.id)</code>") })
        #expect(block.contains("The design's words:"))
        for quote in requirement.quotes {
            #expect(block.contains("<br>— `\(quote.document)`"))
            #expect(block.contains(Self.plainStart(quote.quote)))
        }
    }

    @Test("HTML: the requirement's row has the statement and each quote as a blockquote citing its document")
    func html() throws {
        let (report, requirement) = try Self.failed()
        let html = HTMLReportWriter.render(report)
        let row = try #require(html.components(separatedBy: "<tr id=\"").first { $0.hasPrefix("\(requirement.id)\"") })
        #expect(row.contains("<p class=\"statement\">\(HTMLReportWriter.escape(requirement.statement))</p>"))
        for quote in requirement.quotes {
            #expect(row.contains("<blockquote>\(HTMLReportWriter.escape(quote.quote))<cite>\(quote.document)</cite></blockquote>"))
        }
        let passing = try #require(report.requirements.first { $0.status == .pass && !$0.quotes.isEmpty })
        let passingRow = try #require(html.components(separatedBy: "<tr id=\"").first { $0.hasPrefix("\(passing.id)\"") })
        #expect(!passingRow.contains("<blockquote>"), "only failures carry the quotes in the table")
    }

    @Test("TAP: the YAML block has the statement and the quotes with their documents, and still parses", .needs(.perl))
    func tap() throws {
        let (report, requirement) = try Self.failed()
        let tap = TAPReportWriter.render(report)
        let block = try #require(tap.components(separatedBy: "\nnot ok ").first { $0.contains(" - \(requirement.id) (MUST)") })
        #expect(block.contains("\n  statement: \""))
        #expect(block.contains("\n  quotes:\n    - document: \"\(requirement.quotes[0].document)\"\n      quote: \""))
        #expect(block.contains(Self.plainStart(requirement.quotes[0].quote)))
        let parsed = try TAPReportTests.parse(tap)
        #expect(parsed["parse_errors"] == "", "\(parsed)")
    }
}
