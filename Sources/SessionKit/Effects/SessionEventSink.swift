/// Receives every state transition, in order, as it happens.
public protocol SessionEventSink: Sendable {
    func record(_ transition: SessionTransition)
}
