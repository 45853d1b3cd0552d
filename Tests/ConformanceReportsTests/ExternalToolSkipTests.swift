import Testing

@Suite("Skip messages of the tests that need optional tools")
struct ExternalToolSkipTests {
    @Test("the message names only the tools that are missing, each with how to install it")
    func namesOnlyMissingTools() throws {
        let reason = try #require(ExternalTool.skipReason(needing: [.xmllint, .chromium, .perl, .jsonschema],
                                                          isAvailable: { $0 == .xmllint || $0 == .perl }))
        #expect(reason.contains(ExternalTool.chromium.install))
        #expect(reason.contains(ExternalTool.jsonschema.install))
        #expect(!reason.contains("xmllint"))
        #expect(!reason.contains("perl"))
        #expect(reason.contains("SESSION_CONFORMANCE_REQUIRE_TOOLS=1"))
    }

    @Test("no message when every tool the test needs is installed")
    func noMessageWhenNothingIsMissing() {
        #expect(ExternalTool.skipReason(needing: [.xmllint, .perl], isAvailable: { _ in true }) == nil)
    }
}
