import ConformanceReports
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Every output format, fed the hostile corpus through every free text of a report (what a client, an adapter
/// or an edited shard can say): no line, markup or command of it comes from client text.
@Suite("Hostile client text in every output format")
struct HostileOutputTests {
    static let reports: [ComplianceReport] = {
        do {
            return [try HostileCorpus.hostile(Runs.shared.defective), try HostileCorpus.startupFailure(Runs.shared.defective)]
        } catch {
            fatalError("the hostile reports could not be made: \(error)")
        }
    }()

    /// A character no output may pass through raw: a control (tab and newline aside), a bidi override.
    static func unsafe(_ text: String, allowing allowed: String = "\n") -> [String] {
        text.unicodeScalars.filter { UnsafeText.isUnsafe($0) && !allowed.unicodeScalars.contains($0) }.map { UnsafeText.visible($0) }
    }

    static func forgedLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let body = line.drop { $0 == " " || $0 == "\t" }
            return HostileCorpus.forgedLineStarts.contains { body.hasPrefix($0) }
        }
    }

    @Test("console: the summary and diff print no control character, and every line starts with what the suite writes")
    func console() {
        for report in Self.reports {
            for text in [TextSummaryWriter.render(report, verbose: true), TextSummaryWriter.render(report, width: 100),
                         ReportDiff.compare(old: Runs.shared.defective, new: report).rendered(old: "old.json", new: "new.json"),
                         ReportDiff.compare(old: report, new: Runs.shared.reference).rendered(old: "old.json", new: "new.json")] {
                #expect(Self.unsafe(text).isEmpty, "\(Self.unsafe(text))")
                #expect(Self.forgedLines(text).isEmpty, "\(Self.forgedLines(text))")
            }
        }
    }

    @Test("TAP: only the suite's test points, comments and YAML blocks, one point per requirement, in order")
    func tap() throws {
        let point = try Regex(#"^(not )?ok (\d+) - ((?:[^#\\]|\\.)*)( # (TODO|SKIP)( .*)?)?$"#)
        for report in Self.reports {
            let text = TAPReportWriter.render(report)
            #expect(Self.unsafe(text).isEmpty, "\(Self.unsafe(text))")
            var numbers: [Int] = []
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
                if index == 0 { #expect(line == "TAP version 13"); continue }
                if index == 1 { #expect(line == "1..\(report.requirements.count)"); continue }
                if line.hasPrefix("# ") || line.hasPrefix("  ") { continue }
                let match = try #require(try point.wholeMatch(in: String(line)), "not a line the suite writes: \(line)")
                numbers.append(Int(match.output[2].substring.map(String.init) ?? "") ?? 0)
            }
            #expect(numbers == Array(1...report.requirements.count))
        }
    }

    /// How the Markdown report's own headings start.
    static let suiteHeadings = ["✅ session-conformance: ", "❌ session-conformance: ", "🧩 session-conformance: ", "The adapter could not be started",
                                "Fix first", "Failed MUST requirements", "Cases that could not run", "⏱️ ", "Failures"]

    @Test("Markdown: no heading, link, image, mention, autolink or HTML comes from client text",
          .needs(.markdownIt))
    func markdown() throws {
        let script = Paths.fixtures.appendingPathComponent("markdown_structure.py").path
        let python = try #require(Program.available("python3"))
        let allowedHTML = try Regex(#"</?(details|summary|code|br)( open)?>"#)
        let mention = try Regex(#"(^|[^\w`])@[A-Za-z0-9]"#)
        let autolink = try Regex(#"(?i)(https?|ftp)://|www\.[a-z0-9]|[a-z0-9]@[a-z0-9-]+\."#)
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, report) in Self.reports.enumerated() {
            let markdown = MarkdownReportWriter.render(report)
            #expect(Self.unsafe(markdown).isEmpty, "\(Self.unsafe(markdown))")
            let file = directory.appendingPathComponent("report-\(index).md")
            try markdown.write(to: file)
            let parsed = try Program.run(python, [script, file.path])
            #expect(parsed.status == 0, "\(parsed.stderr)")
            let structure = try #require(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: [String]])
            for heading in structure["headings"] ?? [] {
                #expect(Self.suiteHeadings.contains { heading.hasPrefix($0) }, "a forged heading: \(heading)")
            }
            #expect(structure["links"] == [], "links: \(structure["links"] ?? [])")
            #expect(structure["images"] == [], "images: \(structure["images"] ?? [])")
            for html in structure["html"] ?? [] {
                let stripped = html.replacing(allowedHTML, with: "")
                #expect(!stripped.contains("<"), "HTML from client text: \(html)")
                #expect(!html.contains(mention), "a mention in HTML: \(html)")
            }
            for text in structure["text"] ?? [] {
                #expect(!text.contains(mention), "a mention: \(text)")
                #expect(!text.contains(autolink), "a bare link: \(text)")
            }
        }
    }

    @Test("HTML and JUnit XML: client text is text, never a tag, and no control or bidi character is written raw")
    func htmlAndJUnit() throws {
        for report in Self.reports {
            let html = HTMLReportWriter.render(report)
            #expect(Self.unsafe(html, allowing: "\n\t").isEmpty, "\(Self.unsafe(html, allowing: "\n\t"))")
            for tag in ["<script", "<img", "<a href=\"https://evil", "<!-- PWN", "<details><summary>PWN"] {
                #expect(!html.contains(tag), "HTML from client text: \(tag)")
            }
            let junit = JUnitReportWriter.render(report)
            #expect(Self.unsafe(junit, allowing: "\n\t").isEmpty, "\(Self.unsafe(junit, allowing: "\n\t"))")
            let parser = XMLParser(data: Data(junit.utf8))
            #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
            let badge = XMLParser(data: Data(BadgeWriter.render(report).utf8))
            #expect(badge.parse())
        }
    }

    @Test("JSON: the hostile report reads back as it was written")
    func json() throws {
        for report in Self.reports {
            #expect(try JSONReportWriter.read(JSONReportWriter.render(report)) == report)
        }
    }
}
