/// A suspended caller and the continuation that resumes it. Each waiter is resumed exactly once:
/// whoever removes it from its list resumes it.
struct Waiter<Value: Sendable>: Sendable {
    let id: UInt64
    let continuation: CheckedContinuation<Value, Never>

    func resume(_ value: Value) {
        continuation.resume(returning: value)
    }
}

/// Waiters in arrival order, so resumption order is deterministic.
struct WaiterList<Value: Sendable>: Sendable {
    private var waiters: [Waiter<Value>] = []

    var count: Int { waiters.count }

    mutating func append(_ waiter: Waiter<Value>) {
        waiters.append(waiter)
    }

    mutating func remove(id: UInt64) -> Waiter<Value>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index)
    }

    mutating func removeAll() -> [Waiter<Value>] {
        defer { waiters = [] }
        return waiters
    }
}

/// What an authenticated request is sent with, tagged with the generation it belongs to.
struct RequestTicket: Sendable {
    let generation: SessionGeneration
    let account: AccountID
    let accessToken: AccessToken
    /// The credentials version of `accessToken`, to tell an outdated 401 from a current one.
    let credentialVersion: UInt64
    /// When the request was admitted with this ticket (on the expiry clock), if it was admitted at once. Read only
    /// by the dead-session-after-clock-jump-back defect.
    var admittedAt: MonotonicInstant?
}

/// The answer to a request waiting for the session: a ticket to send with, or why it cannot be sent.
typealias Admission = Result<RequestTicket, SessionError>
