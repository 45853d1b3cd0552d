import ConformanceProtocol
import SimulatedWorld

/// Renders trace events as one line each, with every token value replaced by its handle (`at#2`).
public struct TraceRenderer: Sendable {
    public let vault: TokenVault

    public init(vault: TokenVault) { self.vault = vault }

    public func line(_ event: TraceEvent) -> String {
        let body: String
        switch event.kind {
        case .stepStarted(let index, let kind): body = "-- step \(index + 1): \(kind)"
        case .processStarted(let instance): body = "** client instance \(instance) started"
        case .processKilled(let instance, let reason): body = "** client instance \(instance) killed: \(reason)"
        case .sent(let message): body = "> " + message.line
        case .received(let message): body = "< " + message.line
        case .world(let text): body = "   world: " + text
        case .writeDiscarded(let id): body = "   world: storage change \(id) discarded: the process died first"
        case .effectAbandoned(let id): body = "   world: effect \(id) abandoned by the client: the world will not answer it"
        }
        return vault.redact("#\(event.number) " + body)
    }

    /// Every event; with `realTimeNotes`, also an unnumbered note after each event the adapter left unanswered for a
    /// while in real time. Without them the text depends on nothing but the events, so two runs compare equal.
    /// A trace cut down once its case ended (``CaseRetention``) shows each gap as a line saying which events were not kept.
    public func render(_ trace: Trace, realTimeNotes: Bool = false) -> String {
        let waits = realTimeNotes ? Dictionary(grouping: trace.realTimeWaits, by: \.afterEvent) : [:]
        var previous = 0
        var lines = trace.events.flatMap { event in
            defer { previous = event.number }
            return Self.gap(after: previous, before: event.number)
                + [line(event)] + (waits[event.number] ?? []).map { "   (real time: " + Self.describe($0) + ")" }
        }
        lines += Self.gap(after: previous, before: trace.eventCount + 1)
        return lines.joined(separator: "\n")
    }

    /// The line for events left out between two kept ones, if any.
    private static func gap(after previous: Int, before next: Int) -> [String] {
        guard next > previous + 1 else { return [] }
        let range = next == previous + 2 ? "#\(previous + 1)" : "#\(previous + 1) to #\(next - 1)"
        return ["   ... \(range) not kept (a long trace keeps its ends and the events near its findings)"]
    }

    /// A real-time wait in words, for traces and reports.
    public static func describe(_ wait: RealTimeWait) -> String {
        "the adapter sent nothing for \(wait.seconds) s of real time after #\(wait.afterEvent) while the world's clock stood still"
    }

    /// The events around the evidence, for a failure report.
    public func excerpt(_ trace: Trace, around evidence: [Int], context: Int = 2, limit: Int = 40) -> String {
        // By number: a kept trace may have fewer events than numbers (``CaseRetention``).
        let byNumber = Dictionary(trace.events.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var numbers: Set<Int> = []
        for number in evidence {
            for neighbour in (number - context)...(number + context) where byNumber[neighbour] != nil {
                numbers.insert(neighbour)
            }
        }
        var lines: [String] = []
        var previous = 0
        for number in numbers.sorted().prefix(limit) {
            if previous != 0 && number != previous + 1 { lines.append("   ...") }
            let marker = evidence.contains(number) ? "=> " : "   "
            lines.append(marker + line(byNumber[number]!))
            previous = number
        }
        return lines.joined(separator: "\n")
    }
}
