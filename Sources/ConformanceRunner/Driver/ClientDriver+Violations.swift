import ConformanceProtocol

/// The protocol breaches the driver detects itself, each named precisely.
extension ClientDriver {
    func wrongBarrier(_ id: String, expected: String) -> AdapterFailure {
        AdapterFailure(.protocolViolation, "the runner sent barrier '\(expected)' and the adapter answered '\(id)'",
                       stderrTail: tail())
    }

    /// The case ends here: the adapter is stopped at once so it cannot send more.
    func overBudget(_ overflow: String) -> AdapterFailure {
        let log = tail()
        kill(reason: "the adapter sent more than \(overflow) in one case")
        return AdapterFailure(.protocolViolation, "the adapter sent more than \(overflow) in one case", stderrTail: log)
    }
}
