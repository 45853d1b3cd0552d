/// Names the protocol breach behind an adapter failure: the runner's own words (`AdapterFailure`) say what was
/// seen; this picks the rule and the fix that go with it.
enum FailureDiagnosis {
    /// The adapter did not get through its first `hello`.
    static func startup(_ failure: AdapterFailure) -> Diagnosis {
        let check: DoctorCheck = switch failure.code {
        case .versionMismatch: .protocolVersion
        case .hung: .noHello
        case .crashed where failure.message.hasPrefix("the adapter could not be started") || shellCouldNotRun(failure.message): .notStarted
        case .crashed, .notRunning, .interrupted: .exitedBeforeHello
        case .protocolViolation where failure.message.contains("refreshTriggers"): .unknownRefreshTrigger
        case .protocolViolation where failure.message.contains("first message was not 'hello'"): .firstMessageNotHello
        case .protocolViolation: .badMessage
        }
        return Diagnosis(check, probe: nil, seen: seen(failure.message, stderrTail: failure.stderrTail))
    }

    /// A probe that ended in an `error` verdict; `reason` is the failure's description (`code: message`).
    /// `redact` hides the case's token values (a crashing adapter may print one).
    static func probe(_ probe: String, reason: String, stderrTail: String?, redact: (String) -> String) -> Diagnosis {
        let parts = reason.split(separator: ":", maxSplits: 1).map(String.init)
        let code = parts.count == 2 ? AdapterFailure.Code(rawValue: parts[0]) : nil
        let message = code == nil ? reason : String(parts[1].drop { $0 == " " })
        return Diagnosis(check(code, message), probe: probe, seen: redact(seen(message, stderrTail: stderrTail)))
    }

    private static func check(_ code: AdapterFailure.Code?, _ message: String) -> DoctorCheck {
        let says = { (text: String) in message.contains(text) }
        switch code {
        case .protocolViolation?:
            if says("the runner sent barrier") { return .barrierID }
            if says("sent more than") { return .overBudget }
            if says("abandoned") { return .abandon }
            if says("'hello' sent twice") { return .helloTwice }
            if says("declares 'fork'") { return .forkPID }
            if says("asked for loopback HTTP") { return .loopbackHTTPEffect }
            if says("httpStarted") || says("reported only") || says("in loopback mode") { return .loopbackCounting }
            if says("first message was not 'hello'") { return .firstMessageNotHello }
            if says("bad message") || says("not JSON lines") { return .badMessage }
            return .adapterError
        case .hung?:
            if says("closed its stdout") { return .closedStdout }
            if says("without settling") { return .neverSettles }
            if says("HTTP requests started") { return .loopbackCounting }
            if says("no hello") { return .noHello }
            return .silent
        case .crashed?:
            return says("could not be started") ? .notStarted : .exited
        case .versionMismatch?:
            return .protocolVersion
        case .notRunning?, .interrupted?, nil:
            return .adapterError
        }
    }

    /// /bin/sh's statuses for a command it could not find (127) or run (126).
    private static func shellCouldNotRun(_ message: String) -> Bool {
        message.contains("status 127)") || message.contains("status 126)")
    }

    /// The runner's words, with the last line the adapter wrote to stderr when there is one: usually its error.
    private static func seen(_ message: String, stderrTail: String?) -> String {
        let last = (stderrTail ?? "").split(whereSeparator: \.isNewline).last.map { String($0.prefix(200)) }
        guard let last, !last.isEmpty else { return message }
        return message + " (stderr: " + last + ")"
    }
}
