import ConformanceReports
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The texts of an SVG's `<text>` elements, or nil when it is not well-formed XML.
private final class SVGTexts: NSObject, XMLParserDelegate {
    var texts: [String] = []
    var root: String?
    private var current: String?

    static func parse(_ svg: String) -> (root: String, texts: [String])? {
        let collector = SVGTexts()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        guard parser.parse(), let root = collector.root else { return nil }
        return (root, collector.texts)
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if root == nil { root = name }
        if name == "text" { current = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text", let text = current { texts.append(text) }
        current = nil
    }
}

@Suite("The badge and the expected-failures writer")
struct BadgeAndExpectedFailuresWriterTests {
    @Test("a certified client's badge is well-formed SVG naming every certified profile, in green")
    func certifiedBadge() throws {
        let svg = BadgeWriter.render(Runs.shared.reference)
        let parsed = try #require(SVGTexts.parse(svg), "not well-formed XML:\n\(svg)")
        #expect(parsed.root == "svg")
        #expect(parsed.texts.contains("session-conformance"))
        #expect(parsed.texts.contains("certified: core+background-refresh+offline-browsing"))
        #expect(svg.contains(##"fill="#4c1""##))
    }

    @Test("a client that fails the core profile gets a red 'not certified: core' badge")
    func failedBadge() throws {
        let svg = BadgeWriter.render(Runs.shared.defective)
        let parsed = try #require(SVGTexts.parse(svg))
        #expect(parsed.texts.contains("not certified: core"))
        #expect(!parsed.texts.contains { $0.hasPrefix("certified") })
        #expect(svg.contains(##"fill="#e05d44""##))
    }

    @Test("a shard's badge says incomplete: a part of the suite certifies nothing")
    func shardBadge() throws {
        var report = Runs.shared.reference
        report.run.shard = Shard(index: 1, count: 3)
        #expect(BadgeWriter.verdict(report).message == "incomplete")
    }

    @Test("the badge is a report format with an .svg default path")
    func badgeFormat() throws {
        #expect(try ReportRequest.parse("badge=out/conformance.svg") == ReportRequest(format: .badge, path: "out/conformance.svg"))
        #expect(ReportFormat.badge.defaultPath == "session-conformance-report.svg")
    }

    @Test("written expected failures list every failed and warned requirement, read back by --expected-failures")
    func expectedFailuresRoundTrip() throws {
        let report = Runs.shared.defective
        let yaml = ExpectedFailuresWriter.render(report)
        let listed = report.requirements.filter { [.fail, .warn].contains($0.status) }
        try #require(!listed.isEmpty, "the defective client must fail something")
        let parsed = try Runs.expectedFailures(yaml)
        #expect(parsed.entries.map(\.id) == listed.map(\.id))
        for (entry, requirement) in zip(parsed.entries, listed) {
            let first = try #require(requirement.evidence.first)
            #expect(entry.reason == "\(first.caseID): \(first.message)")
        }
    }

    @Test("a passing run writes an empty list, which --expected-failures accepts")
    func emptyExpectedFailures() throws {
        let yaml = ExpectedFailuresWriter.render(Runs.shared.reference)
        #expect(yaml.hasSuffix("[]\n"))
        #expect(try Runs.expectedFailures(yaml).entries.isEmpty)
    }

    @Test("every hostile string survives the YAML round trip as a reason, and the file's comment holds no line break")
    func hostileReasons() throws {
        var report = Runs.shared.defective
        let index = try #require(report.requirements.firstIndex { $0.status == .fail && !$0.evidence.isEmpty })
        let message = HostileCorpus.strings.joined(separator: " ")
        report.requirements[index].evidence[0].message = message
        report.adapter.description = "adapter\n- id: FORGED\u{FFFE}"
        let yaml = ExpectedFailuresWriter.render(report)
        let parsed = try Runs.expectedFailures(yaml)
        let entry = try #require(parsed.entries.first { $0.id == report.requirements[index].id })
        #expect(entry.reason == "\(report.requirements[index].evidence[0].caseID): \(message)")
        #expect(!parsed.entries.contains { $0.id.contains("FORGED") })
    }

    @Test("reasons with quotes, backslashes and line breaks survive the YAML round trip")
    func quotedReasons() throws {
        let reason = "expected \"a\"\\b\nthen\tc"
        let quoted = ExpectedFailuresWriter.quoted(reason)
        #expect(!quoted.contains("\n"))
        let id = Runs.shared.reference.requirements[0].id
        let parsed = try #require(Runs.expectedFailures("- id: \(id)\n  reason: \(quoted)\n").entries.first)
        #expect(parsed.reason == reason)
    }
}
