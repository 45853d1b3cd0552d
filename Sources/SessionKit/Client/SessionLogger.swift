/// Builds log records with a wall-clock timestamp from the injected clock. Callers pass only
/// identifiers, classes and counts as metadata, never a token.
struct SessionLogger: Sendable {
    let sink: any LogSink
    let clock: any SessionClock

    func log(_ level: LogLevel, _ event: String, _ metadata: [String: String] = [:]) {
        sink.log(LogRecord(timestamp: clock.wallClockNow(), level: level, event: event, metadata: metadata))
    }

    /// Every transition is logged with its endpoints, account, generation, reason and failure class.
    func transition(_ transition: SessionTransition) {
        var metadata = [
            "transition": transition.id.rawValue,
            "from": transition.from.rawValue,
            "to": transition.to.rawValue,
            "event": transition.event.rawValue,
            "generation": transition.generation.description,
            "reason": transition.reason.rawValue,
        ]
        if let account = transition.account { metadata["account"] = account.rawValue }
        if let failureClass = transition.failureClass { metadata["failureClass"] = failureClass.rawValue }
        log(transition.failureClass == nil ? .info : .notice, "session.transition", metadata)
    }
}
