import ConformanceReports
import Foundation
import Testing

/// Headless Chromium: loads a page, reports its console messages, takes screenshots.
enum Chromium {
    static var executable: String? {
        ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(Program.available).first
    }

    static let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                        "--disable-extensions", "--disable-background-networking", "--mute-audio"]

    /// The page's console messages (errors, uncaught exceptions, refused loads, CSP violations), from
    /// Chromium's log, and the DOM it built.
    static func load(_ file: URL) throws -> (console: [String], dom: String) {
        let chromium = try #require(executable, """
            headless Chromium is needed for the HTML report tests and was not found: install it with \
            'apt-get install -y chromium' (bash .ci/run does)
            """)
        let run = try Program.run(chromium, flags + ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000",
                                                     "--dump-dom", file.absoluteString], timeout: 120)
        try #require(run.status == 0, "chromium exited \(run.status): \(run.stderr.suffix(2_000))")
        let console = run.stderr.split(separator: "\n").map(String.init).filter { line in
            line.contains(":CONSOLE") || line.contains("Uncaught") || line.contains("Refused to")
                || line.contains("Failed to load resource") || line.contains("Content Security Policy")
        }
        return (console, run.stdout)
    }

    /// Renders the page to a PNG; this is the documented command (README: Reports).
    static func screenshot(_ file: URL, to png: URL, height: Int = 3000) throws {
        let chromium = try #require(executable, "install chromium: apt-get install -y chromium")
        let run = try Program.run(chromium, flags + ["--window-size=1280,\(height)", "--screenshot=\(png.path)", file.absoluteString],
                                  timeout: 120)
        try #require(run.status == 0, "chromium exited \(run.status): \(run.stderr.suffix(2_000))")
    }
}

@Suite("The HTML report", .serialized)
struct HTMLReportTests {
    /// Where renders are kept for people to look at, when SESSION_CONFORMANCE_KEEP_RENDERS names a folder.
    static func output(_ name: String) throws -> URL {
        if let keep = ProcessInfo.processInfo.environment["SESSION_CONFORMANCE_KEEP_RENDERS"] {
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            return URL(fileURLWithPath: keep).appendingPathComponent(name)
        }
        return try Paths.temporaryDirectory().appendingPathComponent(name)
    }

    @Test("the page is one self-contained file: no script, no external asset, a policy that forbids loading any")
    func selfContained() {
        for report in [Runs.shared.reference, Runs.shared.defective] {
            let html = HTMLReportWriter.render(report)
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            #expect(!html.lowercased().contains("<script"))
            // Internal references only: url(#marker) and href="#anchor"; the one URL is the SVG namespace.
            let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
            for pattern in [#"\bsrc\s*="#, #"<link\b"#, #"@import"#, #"url\(\s*[^#\s]"#, #"href\s*=\s*"[^#]"#, #"https?://"#] {
                #expect(withoutNamespace.range(of: pattern, options: .regularExpression) == nil,
                        "the page refers to something outside itself: \(pattern)")
            }
            #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        }
    }

    @Test("the state machine is inline SVG with every state and transition, coloured by result")
    func stateMachineColoured() throws {
        let report = Runs.shared.defective
        let html = HTMLReportWriter.render(report)
        let svg = try #require(html.range(of: "<svg").map { String(html[$0.lowerBound...]) }?.components(separatedBy: "</svg>").first)
        for state in report.stateMachine.states { #expect(svg.contains(">\(state.id)</text>")) }
        for transition in report.stateMachine.transitions {
            #expect(svg.contains(">\(transition.id)</text>"), "\(transition.id) is not drawn")
        }
        // A transition cited by a failed requirement is drawn in the failure colour, a passing one in green.
        let failing = try #require(report.stateMachine.transitions.first { $0.status == .fail })
        #expect(svg.contains("<title>\(failing.id): \(failing.from) → \(failing.to) on \(failing.event); fail</title><path"))
        #expect(svg.contains("stroke=\"#cf222e\""))
        #expect(svg.contains("stroke=\"#1a7f37\""))
    }

    @Test("each failing case gets its findings, reproduce command and a sequence diagram with the evidence marked")
    func failingCasesHaveSequenceDiagrams() {
        let report = Runs.shared.defective
        let html = HTMLReportWriter.render(report)
        let failing = report.cases.filter { $0.status == .fail || $0.status == .error }
        #expect(!failing.isEmpty)
        for testCase in failing {
            #expect(html.contains("aria-label=\"Sequence diagram of case \(testCase.id)\""), "\(testCase.id) has no diagram")
            #expect(html.contains(HTMLReportWriter.escape(testCase.reproduce)))
        }
        #expect(html.contains("class=\"num hit\""), "evidence events are highlighted")
        #expect(!HTMLReportWriter.render(Runs.shared.reference).contains("Sequence diagram of case"))
    }

    @Test("the per-requirement table lists every requirement with its status")
    func requirementTable() {
        let report = Runs.shared.defective
        let html = HTMLReportWriter.render(report)
        for requirement in report.requirements {
            #expect(html.contains("<tr id=\"\(requirement.id)\" class=\"row-\(requirement.status.rawValue)\">"))
        }
    }

    @Test("every in-page link leads to an element of the page")
    func linksResolve() throws {
        func captures(_ pattern: String, in text: String) throws -> [String] {
            let regex = try NSRegularExpression(pattern: pattern)
            return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        for report in [Runs.shared.reference, Runs.shared.defective] {
            let html = HTMLReportWriter.render(report)
            let ids = Set(try captures(##" id="([^"]+)""##, in: html))
            let targets = Set(try captures(##"href="#([^"]+)""##, in: html))
            #expect(!targets.isEmpty)
            for target in targets { #expect(ids.contains(target), "no element has id \(target)") }
        }
    }

    @Test("the console check catches a page with a script error, so it can fail", .needs(.chromium))
    func consoleCheckCanFail() throws {
        let page = try Self.output("broken.html")
        try "<!DOCTYPE html><html><body><p>x</p><script>console.error('boom'); missingFunction();</script></body></html>".write(to: page)
        let (console, _) = try Chromium.load(page)
        #expect(console.contains { $0.contains("boom") })
        #expect(console.contains { $0.contains("Uncaught") })
    }

    @Test("headless Chromium loads the reports with no console error, builds the page, and renders it to PNG", .needs(.chromium))
    func loadsInChromium() throws {
        for (name, report) in [("reference", Runs.shared.reference), ("failing", Runs.shared.defective)] {
            let page = try Self.output("\(name).html")
            try HTMLReportWriter.render(report).write(to: page)
            let (console, dom) = try Chromium.load(page)
            #expect(console.isEmpty, "console messages from the \(name) report:\n\(console.joined(separator: "\n"))")
            #expect(dom.contains("<svg"), "the \(name) page was not built")
            #expect(dom.contains("id=\"requirements\""))
            let png = page.deletingPathExtension().appendingPathExtension("png")
            try Chromium.screenshot(page, to: png)
            let bytes = try Data(contentsOf: png)
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
            #expect(bytes.count > 20_000, "the screenshot of the \(name) report is suspiciously small")
        }
    }
}
