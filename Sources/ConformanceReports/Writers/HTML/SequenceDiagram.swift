/// A failing case's trace as an inline SVG sequence diagram: the runner (the world: servers, storage, clock,
/// the OS) on the left, the client on the right, one row per event, the evidence highlighted. Barrier
/// exchanges are left out; long traces are cut to windows around the evidence.
enum SequenceDiagram {
    static let rowHeight = 22.0
    static let width = 980.0
    static let runnerX = 250.0
    static let clientX = 800.0
    static let top = 56.0
    /// Events kept on each side of a piece of evidence.
    static let context = 8
    static let maximumRows = 90

    enum Row {
        case event(TraceLine, evidence: Bool)
        case gap(Int)
    }

    /// The rows to draw: every event but barriers when they fit, else windows around the evidence (or the
    /// end of the trace, for a case that errored without findings). A gap row stands for events left out,
    /// here or in the report itself (a long trace is cut there too).
    static func rows(_ trace: [TraceLine], evidence: Set<Int>) -> [Row] {
        let shown = trace.filter { $0.type != "barrier" }
        var keep = Set(shown.indices)
        if shown.count > maximumRows {
            keep = []
            let anchors = shown.indices.filter { evidence.contains(shown[$0].number) }
            if anchors.isEmpty { keep.formUnion(max(0, shown.count - 40)..<shown.count) }
            for anchor in anchors {
                keep.formUnion(max(0, anchor - context)...min(shown.count - 1, anchor + context))
                // The step the evidence happened in, for context.
                if let stepStart = shown[..<anchor].lastIndex(where: { $0.kind == .step }) { keep.insert(stepStart) }
            }
        }
        let present = Set(trace.map(\.number))
        var result: [Row] = []
        var skipped = 0
        var previousNumber = 0
        for index in shown.indices {
            let line = shown[index]
            skipped += (previousNumber + 1..<max(previousNumber + 1, line.number)).filter { !present.contains($0) }.count
            previousNumber = line.number
            guard keep.contains(index) else {
                skipped += 1
                continue
            }
            if skipped > 0 { result.append(.gap(skipped)) }
            skipped = 0
            result.append(.event(line, evidence: evidence.contains(line.number)))
            if result.count >= maximumRows * 2 { break }
        }
        if skipped > 0 { result.append(.gap(skipped)) }
        return result
    }

    /// `index` keeps the diagram's marker ids unique in the page.
    static func render(_ testCase: CaseReport, index diagram: Int) -> String {
        let evidence = Set(testCase.findings.flatMap(\.events))
        let rows = rows(testCase.trace, evidence: evidence)
        let height = top + Double(rows.count) * rowHeight + 24
        var svg: [String] = []
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram sequence\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
                   + "width=\"\(n(width))\" height=\"\(n(height))\" role=\"img\" aria-label=\"Sequence diagram of case \(esc(testCase.id))\">")
        svg.append("<title>Sequence diagram of \(esc(testCase.id)): runner (world) and client, barriers omitted</title>")
        svg.append("<defs><marker id=\"seq\(diagram)-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                   + "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker>"
                   + "<marker id=\"seq\(diagram)-hit\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
                   + "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#cf222e\"/></marker></defs>")
        for (x, name) in [(runnerX, "runner (world)"), (clientX, "client")] {
            svg.append("<rect x=\"\(n(x - 70))\" y=\"8\" width=\"140\" height=\"28\" rx=\"6\" fill=\"#f6f8fa\" stroke=\"#57606a\"/>")
            svg.append("<text x=\"\(n(x))\" y=\"27\" text-anchor=\"middle\" class=\"lane\">\(name)</text>")
            svg.append("<line x1=\"\(n(x))\" y1=\"36\" x2=\"\(n(x))\" y2=\"\(n(height - 8))\" stroke=\"#8c959f\" stroke-dasharray=\"4 4\"/>")
        }
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let middle = y + rowHeight / 2
            switch row {
            case .gap(let count):
                svg.append("<text x=\"\(n((runnerX + clientX) / 2))\" y=\"\(n(middle + 4))\" text-anchor=\"middle\" class=\"gap\">"
                           + "⋯ \(count) event\(count == 1 ? "" : "s") not shown ⋯</text>")
            case .event(let line, let hit):
                if hit {
                    svg.append("<rect x=\"4\" y=\"\(n(y + 1))\" width=\"\(n(width - 8))\" height=\"\(n(rowHeight - 2))\" fill=\"#ffebe9\" rx=\"3\"/>")
                }
                let numberClass = hit ? "num hit" : "num"
                svg.append("<text x=\"10\" y=\"\(n(middle + 4))\" class=\"\(numberClass)\">#\(line.number)</text>")
                let label = esc(shorten(line.summary, 74))
                let tooltip = "<title>\(esc(line.text))</title>"
                switch line.kind {
                case .step:
                    svg.append("<g>\(tooltip)<line x1=\"60\" y1=\"\(n(middle))\" x2=\"\(n(width - 10))\" y2=\"\(n(middle))\" stroke=\"#d0d7de\"/>"
                               + "<rect x=\"\(n((runnerX + clientX) / 2 - 150))\" y=\"\(n(y + 3))\" width=\"300\" height=\"\(n(rowHeight - 6))\" "
                               + "rx=\"8\" fill=\"#ddf4ff\" stroke=\"#54aeff\"/><text x=\"\(n((runnerX + clientX) / 2))\" y=\"\(n(middle + 4))\" "
                               + "text-anchor=\"middle\" class=\"step\">\(label)</text></g>")
                case .sent, .received:
                    let (from, to) = line.kind == .sent ? (runnerX, clientX) : (clientX, runnerX)
                    let colour = hit ? "#cf222e" : "#57606a"
                    svg.append("<g>\(tooltip)<line x1=\"\(n(from))\" y1=\"\(n(middle + 5))\" x2=\"\(n(to))\" y2=\"\(n(middle + 5))\" "
                               + "stroke=\"\(colour)\" stroke-width=\"\(hit ? "2" : "1.2")\" marker-end=\"url(#seq\(diagram)-\(hit ? "hit" : "arrow"))\"/>"
                               + "<text x=\"\(n((runnerX + clientX) / 2))\" y=\"\(n(middle + 1))\" text-anchor=\"middle\" "
                               + "class=\"\(hit ? "msg hit" : "msg")\">\(label)</text></g>")
                case .world:
                    svg.append("<g>\(tooltip)<rect x=\"64\" y=\"\(n(y + 3))\" width=\"\(n(runnerX - 74))\" height=\"\(n(rowHeight - 6))\" rx=\"3\" "
                               + "fill=\"#fff8c5\" stroke=\"#d4a72c\"/><text x=\"70\" y=\"\(n(middle + 4))\" class=\"note\">"
                               + "\(esc(shorten(line.summary, 28)))</text></g>")
                case .processStarted, .processKilled:
                    let killed = line.kind == .processKilled
                    svg.append("<g>\(tooltip)<rect x=\"\(n(clientX - 150))\" y=\"\(n(y + 3))\" width=\"300\" height=\"\(n(rowHeight - 6))\" rx=\"3\" "
                               + "fill=\"\(killed ? "#ffebe9" : "#dafbe1")\" stroke=\"\(killed ? "#cf222e" : "#1a7f37")\"/>"
                               + "<text x=\"\(n(clientX))\" y=\"\(n(middle + 4))\" text-anchor=\"middle\" class=\"note\">"
                               + "\(esc(shorten(line.summary, 44)))</text></g>")
                }
            }
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    static func shorten(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    static func n(_ value: Double) -> String { StateMachineDiagram.n(value) }
    static func esc(_ text: String) -> String { HTMLReportWriter.escape(text) }
}
