import ConformanceProtocol

/// One thing that happened in a case, numbered so failures can cite it as evidence.
public struct TraceEvent: Sendable {
    public enum Kind: Sendable {
        case stepStarted(index: Int, kind: String)
        case processStarted(instance: Int)
        case processKilled(instance: Int, reason: String)
        case sent(RunnerMessage)
        case received(AdapterMessage)
        /// Something the world did that the client cannot see, such as a token rotation.
        case world(String)
        /// A storage change (secure storage or preferences) that never took effect: the process died before it landed.
        case writeDiscarded(effectID: String)
    }

    public let number: Int
    /// The case step (0-based) during which it happened.
    public let step: Int
    /// The client process instance it belongs to (1 for the first launch).
    public let instance: Int
    /// The device's monotonic clock, in seconds, when it happened.
    public let time: Double
    public let kind: Kind
}

/// The numbered events of one case, in order.
public struct Trace: Sendable {
    public private(set) var events: [TraceEvent] = []
    /// Bytes received from the client so far, about as written (see ``TraceBudget``).
    private(set) var receivedBytes = 0
    /// Set once the trace is over its ``TraceBudget``: what the adapter sent more than.
    var overflow: String? { TraceBudget.overflow(events: events.count, receivedBytes: receivedBytes) }

    mutating func append(_ kind: TraceEvent.Kind, step: Int, instance: Int, time: Double) {
        if case .received(let message) = kind { receivedBytes += message.approximateSize }
        events.append(TraceEvent(number: events.count + 1, step: step, instance: instance, time: time, kind: kind))
    }

    /// Events received from the client, with their numbers.
    public var received: [(event: TraceEvent, message: AdapterMessage)] {
        events.compactMap { event in
            if case .received(let message) = event.kind { return (event, message) }
            return nil
        }
    }
}
