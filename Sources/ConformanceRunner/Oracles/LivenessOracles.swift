import ConformanceProtocol

/// Liveness under a silent server: a refresh the world never answers (held, never released, or released too
/// late) must not block the user forever. Once the virtual clock has moved `bound` past the refresh's sending,
/// every command of that process sent before then has its result by the end of that step: the client gave up
/// on the refresh (a timeout, which is retryable: refresh-deferred, then backoff) and answered its waiters.
///
/// The client is not judged while it is visibly still working after the refresh: a new HTTP request or
/// secure-storage access (it retried, or it restores), or a sleep begun later than the refresh (a backoff).
/// Charged to REFRESH-RETRYABLE-BACKOFF ("On a refresh timeout, ... defer the refresh ... and back off"): a client
/// with no deadline of its own never has the timeout that requirement speaks of, so it never defers the refresh.
///
/// A process killed before the end of that step dropped what was held, and is not judged either; nor is one still
/// restoring then: a restore blocked on the server keeps its launch outstanding (docs/adapter-protocol.md).
struct NoCommandBlockedByAnUnansweredRefresh: Oracle {
    let id = "no-command-blocked-by-an-unanswered-refresh"
    let invariants: [String] = []
    let requirements = ["REFRESH-RETRYABLE-BACKOFF"]
    /// The longest a certified client may leave a command waiting on one unanswered refresh (virtual seconds).
    /// Generous on purpose: far above the reference's per-request deadline (`SessionConfiguration.requestDeadline`,
    /// 30 s) and above the longest any hand-written case holds a refresh (10 min), so what it catches is a client
    /// with no deadline at all, not one whose deadline is long.
    static let bound = 900.0

    func check(_ context: OracleContext) -> [Finding] {
        let events = context.trace.events
        let index = context.index
        var findings: [Finding] = []
        var judged: Set<Int> = []
        for refresh in index.exchanges where refresh.isRefresh && !judged.contains(refresh.instance) {
            let sentAt = events[refresh.event - 1].time
            // The first event at which the clock had passed the bound, and the end of its step.
            guard let passed = events[refresh.event...].first(where: { $0.time >= sentAt + Self.bound }) else { continue }
            if let replied = refresh.replyEvent, replied < passed.number { continue }
            let end = events.last { $0.step <= passed.step }?.number ?? passed.number
            let window = refresh.event + 1...end
            // A restore blocked on the server keeps its launch, and what waits for it, outstanding (adapter protocol).
            guard !index.kills.contains(where: { $0.instance == refresh.instance && $0.event <= end }),
                  index.state(before: end + 1, instance: refresh.instance) != "restoring",
                  !stillWorking(after: refresh, sentAt: sentAt, in: window, events) else { continue }
            let answered = Set(index.results.filter { $0.instance == refresh.instance && $0.event <= end }.map(\.value.id))
            // A command whose own request (other than a refresh) the world still holds waits on that request, which
            // no requirement bounds; it is not blocked by the refresh.
            let heldOwn = Set(index.exchanges.filter {
                $0.instance == refresh.instance && !$0.isRefresh && $0.event <= end && ($0.endedEvent ?? .max) > end
            }.compactMap(\.cause))
            guard let blocked = index.commands.first(where: {
                $0.instance == refresh.instance && $0.event < passed.number && !answered.contains($0.value.id)
                    && !heldOwn.contains($0.value.id)
            }) else { continue }
            judged.insert(refresh.instance)
            findings.append(context.finding(
                requirements, id,
                "command \(blocked.value.id) (\(blocked.value.kind.rawValue)) still had no result \(Self.seconds(passed.time - sentAt)) s after a refresh the world never answered was sent; a client must give up on a request within \(Self.seconds(Self.bound)) s (a timeout is retryable: defer the refresh and back off)",
                [refresh.event, blocked.event, passed.number]))
        }
        return findings
    }

    /// Whether the refresh's process did something new after it: an HTTP request, a secure-storage access, or a
    /// sleep asked for at a later time than the refresh was sent (a sleep asked for with it is its deadline).
    private func stillWorking(after refresh: TraceIndex.Exchange, sentAt: Double, in window: ClosedRange<Int>,
                              _ events: [TraceEvent]) -> Bool {
        window.contains { number in
            let event = events[number - 1]
            guard event.instance == refresh.instance else { return false }
            switch event.kind {
            case .received(.http), .received(.storage): return true
            case .received(.sleep): return event.time > sentAt
            default: return false
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
