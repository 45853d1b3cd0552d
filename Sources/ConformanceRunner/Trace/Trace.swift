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
        /// The runner took up the client's `abandon` of an effect it had not answered: it is no longer held, never
        /// answered, and no longer in flight for the oracles. In loopback mode `effectID` is the request's
        /// `loopback-N` id. An abandon the runner ignored (of an effect already answered) has none.
        case effectAbandoned(effectID: String)
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

/// The numbered events of one case, in order. Once the case has ended, what a case keeps may be fewer events than it had,
/// and messages cut (see ``CaseRetention``): `eventCount` is the whole trace's count, and the events keep their numbers.
public struct Trace: Sendable {
    public private(set) var events: [TraceEvent] = []
    /// How many events the whole trace had, when `events` keeps fewer.
    private var wholeCount: Int?
    /// How many events the whole trace had: `events.count` unless the kept trace was cut down.
    public var eventCount: Int { wholeCount ?? events.count }
    /// How many messages and texts of the kept events were cut (see ``CaseRetention``); 0 for a trace kept as it was.
    public private(set) var cutMessages = 0
    /// Bytes received from the client so far, about as written (see ``TraceBudget``).
    private(set) var receivedBytes = 0
    /// Set once the trace is over its ``TraceBudget``: what the adapter sent more than.
    var overflow: String? { TraceBudget.overflow(events: events.count, receivedBytes: receivedBytes) }

    mutating func append(_ kind: TraceEvent.Kind, step: Int, instance: Int, time: Double) {
        if case .received(let message) = kind { receivedBytes += message.approximateSize }
        events.append(TraceEvent(number: events.count + 1, step: step, instance: instance, time: time, kind: kind))
    }

    /// Real time the runner spent waiting on a silent adapter (see ``RealTimeWait``): beside the events, never
    /// one of them, so no event number, oracle or verdict depends on the machine's speed.
    public private(set) var realTimeWaits: [RealTimeWait] = []

    mutating func noteRealTimeWait(_ wait: RealTimeWait) { realTimeWaits.append(wait) }

    /// Keeps only `kept`, events of this trace in order (see ``CaseRetention``).
    mutating func retain(_ kept: [TraceEvent], cutMessages cut: Int) {
        wholeCount = eventCount
        events = kept
        cutMessages += cut
    }

    /// Events received from the client, with their numbers.
    public var received: [(event: TraceEvent, message: AdapterMessage)] {
        events.compactMap { event in
            if case .received(let message) = event.kind { return (event, message) }
            return nil
        }
    }
}

/// The adapter sent nothing for `seconds` of real time while the runner waited for it after event `afterEvent`
/// (a barrier, a reply, a command): a client that sleeps or waits on a socket timeout in real time, while its
/// virtual clock stands still. A diagnostic for the report: measured on the machine's clock, it decides nothing.
public struct RealTimeWait: Sendable, Hashable {
    /// The silence, in seconds of real time, rounded to tenths.
    public let seconds: Double
    /// The last trace event before the silence (what the adapter was expected to answer).
    public let afterEvent: Int
    /// The case step (0-based) and the client process instance.
    public let step: Int
    public let instance: Int

    /// Silences shorter than this are a busy or slow machine, not a wait of the client's.
    public static let threshold = 1.0

    public init(seconds: Double, afterEvent: Int, step: Int, instance: Int) {
        self.seconds = (seconds * 10).rounded() / 10
        self.afterEvent = afterEvent
        self.step = step
        self.instance = instance
    }
}
