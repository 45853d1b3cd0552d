import ConformanceReports
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `xmllint --schema` against the JUnit XSD in Fixtures/ (Jenkins' junit-10.xsd; see Fixtures/README.md).
enum JUnitSchema {
    static func validate(_ xml: String) throws -> (valid: Bool, output: String) {
        let xmllint = try #require(Program.available("xmllint"), """
            xmllint is needed for the JUnit test: install it with 'apt-get install -y libxml2-utils' (bash .ci/run does)
            """)
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.xml")
        try xml.write(to: file)
        let run = try Program.run(xmllint, ["--noout", "--schema", Paths.junitSchema, file.path])
        return (run.status == 0, run.stderr)
    }
}

@Suite("The JUnit report")
struct JUnitReportTests {
    @Test("passing and failing reports are valid against the JUnit XSD", .needs(.xmllint))
    func validAgainstXSD() throws {
        for (name, report) in [("reference", Runs.shared.reference), ("defective", Runs.shared.defective)] {
            let result = try JUnitSchema.validate(JUnitReportWriter.render(report))
            #expect(result.valid, "\(name): \(result.output)")
        }
    }

    @Test("a failed SHOULD is a JUnit failure of type warning with its evidence, so CI views show it")
    func warningIsAFailure() throws {
        var report = Runs.shared.defective
        let index = try #require(report.requirements.firstIndex { $0.status == .fail && !$0.evidence.isEmpty })
        report.requirements[index].level = "SHOULD"
        report.requirements[index].status = .warn
        let requirement = report.requirements[index]
        let xml = JUnitReportWriter.render(report)
        let start = try #require(xml.range(of: "name=\"\(requirement.id): "))
        let testcase = xml[start.lowerBound...].components(separatedBy: "</testcase>")[0]
        #expect(testcase.contains("type=\"warning\""), "\(testcase)")
        #expect(testcase.contains("message=\"warning: SHOULD requirement not met (does not fail certification): "))
        #expect(testcase.contains(requirement.evidence[0].caseID))
    }

    @Test("the XSD check rejects a broken document, so it can fail", .needs(.xmllint))
    func xsdRejects() throws {
        let result = try JUnitSchema.validate(#"<?xml version="1.0"?><testsuites><testsuite name="x"><testcase/></testsuite></testsuites>"#)
        #expect(!result.valid)
    }

    @Test("control characters are shown as escapes and markup is escaped, and the result stays valid XML", .needs(.xmllint))
    func controlCharacters() throws {
        var report = Runs.shared.defective
        let index = try #require(report.cases.firstIndex { $0.status == .fail })
        report.cases[index].findings[0].message = "bad \u{0}\u{1}\u{1B}[31mred\u{7F} <tag> & \"quotes\" ]]> \u{FFFE}end"
        report.cases[index].title = "title with \u{8}backspace & <angle>"
        report.derive()
        let xml = JUnitReportWriter.render(report)
        for control in ["\u{0}", "\u{1}", "\u{1B}", "\u{8}", "\u{FFFE}"] { #expect(!xml.contains(control)) }
        #expect(xml.contains("&lt;tag&gt; &amp;"))
        let result = try JUnitSchema.validate(xml)
        #expect(result.valid, "\(result.output)")
        let document = try XMLDocument(data: Data(xml.utf8))
        let failures = try document.nodes(forXPath: "//failure/@message").compactMap(\.stringValue)
        #expect(failures.contains { $0.contains(#"bad \u{00}\u{01}\u{1B}[31mred\u{7F} <tag> & "quotes" ]]> \u{FFFE}end"#) }, "\(failures)")
    }

    @Test("parsed back, the counts, names, failures and skips match the report")
    func parsesBack() throws {
        let report = Runs.shared.defective
        let document = try XMLDocument(data: Data(JUnitReportWriter.render(report).utf8))
        let suites = try document.nodes(forXPath: "/testsuites/testsuite").compactMap { $0 as? XMLElement }
        #expect(suites.map { $0.attribute(forName: "name")?.stringValue } == ["requirements", "cases"])
        let testable = report.requirements.filter(\.isTestable)
        #expect(suites[0].attribute(forName: "tests")?.stringValue == String(testable.count))
        #expect(suites[0].attribute(forName: "failures")?.stringValue == String(testable.filter { $0.status == .fail }.count))
        #expect(suites[0].attribute(forName: "errors")?.stringValue == String(testable.filter { $0.status == .error }.count))
        #expect(suites[1].attribute(forName: "tests")?.stringValue == String(report.cases.count))
        #expect(suites[1].attribute(forName: "failures")?.stringValue == String(report.cases.filter { $0.status == .fail }.count))
        #expect(suites[1].attribute(forName: "skipped")?.stringValue == String(report.cases.filter { $0.status == .skipped }.count))
        let failed = try document.nodes(forXPath: "//testsuite[@name='requirements']/testcase[failure]/@name").compactMap(\.stringValue)
        #expect(failed.contains { $0.hasPrefix("LOG-NO-TOKEN-VALUES: ") })
        let properties = try document.nodes(forXPath: "//testsuite[@name='requirements']/properties/property").compactMap { $0 as? XMLElement }
        let values = Dictionary(properties.compactMap { element in
            element.attribute(forName: "name")?.stringValue.map { ($0, element.attribute(forName: "value")?.stringValue ?? "") }
        }, uniquingKeysWith: { a, _ in a })
        #expect(values["spec.digest"] == report.spec.digest)
        #expect(values["certification.core"] == "notCertified")
        let failureText = try document.nodes(forXPath: "//testcase[starts-with(@name,'LOG-NO-TOKEN-VALUES')]/failure").first?.stringValue
        #expect(failureText?.contains("reproduce: session-conformance run --case ") == true)
    }

    @Test("an expected failure is reported skipped with its reason, like pytest's xfail", .needs(.xmllint))
    func knownIsSkipped() throws {
        let expected = try Runs.expectedFailures("""
            - id: LOG-NO-TOKEN-VALUES
              reason: APP-1
            """)
        let report = try Runs.report(Runs.defectiveLauncher, expected: expected).report
        let xml = JUnitReportWriter.render(report)
        #expect(try JUnitSchema.validate(xml).valid)
        let document = try XMLDocument(data: Data(xml.utf8))
        let skipped = try document.nodes(forXPath: "//testcase[starts-with(@name,'LOG-NO-TOKEN-VALUES')]/skipped/@message").first?.stringValue
        #expect(skipped == "expected failure: APP-1")
    }
}
