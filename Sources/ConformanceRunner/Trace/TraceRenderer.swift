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
    public func render(_ trace: Trace, realTimeNotes: Bool = false) -> String {
        let waits = realTimeNotes ? Dictionary(grouping: trace.realTimeWaits, by: \.afterEvent) : [:]
        return trace.events.flatMap { event in
            [line(event)] + (waits[event.number] ?? []).map { "   (real time: " + Self.describe($0) + ")" }
        }.joined(separator: "\n")
    }

    /// A real-time wait in words, for traces and reports.
    public static func describe(_ wait: RealTimeWait) -> String {
        "the adapter sent nothing for \(wait.seconds) s of real time after #\(wait.afterEvent) while the world's clock stood still"
    }

    /// The events around the evidence, for a failure report.
    public func excerpt(_ trace: Trace, around evidence: [Int], context: Int = 2, limit: Int = 40) -> String {
        var numbers: Set<Int> = []
        for number in evidence {
            for neighbour in (number - context)...(number + context) where neighbour >= 1 && neighbour <= trace.events.count {
                numbers.insert(neighbour)
            }
        }
        var lines: [String] = []
        var previous = 0
        for number in numbers.sorted().prefix(limit) {
            if previous != 0 && number != previous + 1 { lines.append("   ...") }
            let marker = evidence.contains(number) ? "=> " : "   "
            lines.append(marker + line(trace.events[number - 1]))
            previous = number
        }
        return lines.joined(separator: "\n")
    }
}
