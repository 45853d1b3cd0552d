/// A case never outlives a client's own request deadline unless it is about deadlines (docs/spec-format.md,
/// "Held requests and the clock"). Real stacks give up on a request the server does not answer (URLSession after
/// 60 s, OkHttp 10 s, httpx 5 s), which 001 allows ("Timeouts, 5xx and offline are retryable"), so a case that
/// holds a request while the clock moves far tests the client's timeout instead of what the case is about.
///
/// The rule is read from the steps alone, the same way for `lint` and for `explore`'s generator: from the first
/// step that drives the client after a `hold` (a request may be held from then on) until its `release` or the
/// process's end (`kill`, `reboot`), the clock moves less than `limit` seconds in all, unless the case says
/// `timeouts: true`.
public enum HeldClockRule {
    /// The clock moves less than this while a request may be held: below 5 s, httpx's default and the shortest
    /// common one.
    public static let limit = 5.0
    /// Under `expiry` or `background`, a `refreshDue` step while a request may be held finds the clock this close
    /// to the access tokens' expiry (the runner moves it there before the request is sent: `approaches`), so
    /// the step itself moves the clock `expiryApproach + 1` seconds.
    public static let expiryApproach = 2.0

    /// A clock move past the limit: the step, the held path, and the seconds moved since a request may be held.
    public struct Violation: Sendable, Equatable {
        public let step: Int
        public let path: String
        public let seconds: Double
    }

    /// What the rule finds in the steps of one variant.
    public struct Analysis: Sendable, Equatable {
        /// Step indices before which the runner moves the clock to `expiryApproach` seconds short of expiry.
        public var approaches: [Int] = []
        public var violations: [Violation] = []

        public init() {}
    }

    /// `trigger`: the variant's (nil for a case without triggers).
    public static func analyze(_ steps: [CaseStep], trigger: RefreshTrigger?) -> Analysis {
        let approaches = walk(steps, trigger: trigger, approaches: []).approaches
        // Again with the approaches in place: one is a long clock move, harmless only if nothing is held yet.
        return walk(steps, trigger: trigger, approaches: Set(approaches))
    }

    private static func walk(_ steps: [CaseStep], trigger: RefreshTrigger?, approaches planned: Set<Int>) -> Analysis {
        var analysis = Analysis()
        // Per held path: nil until a step drove the client while it was held (no request can be held before),
        // then the step that did and the seconds the clock moved since.
        var pending: [String: (since: Int?, seconds: Double)] = [:]
        let movesClockAtDue = trigger == .expiry || trigger == .background
        func move(_ seconds: Double, at index: Int) {
            for (path, state) in pending {
                guard let since = state.since else { continue }
                let total = state.seconds + seconds
                pending[path] = (since, total)
                if total >= limit, !analysis.violations.contains(where: { $0.path == path && $0.step >= since }) {
                    analysis.violations.append(Violation(step: index, path: path, seconds: total))
                }
            }
        }
        for (index, step) in steps.enumerated() {
            if planned.contains(index) { move(.infinity, at: index) }
            switch step.action {
            case .hold(let path):
                pending[path] = (nil, 0)
                continue
            case .release(let path):
                pending[path] = nil
            case .kill, .reboot:
                for path in pending.keys { pending[path] = (nil, 0) }
                continue
            case .advance(let seconds):
                move(seconds, at: index)
            case .refreshDue where movesClockAtDue:
                if let first = pending.values.compactMap(\.since).min() {
                    if !analysis.approaches.contains(first) { analysis.approaches.append(first) }
                    move(expiryApproach + 1, at: index)
                }
            case .refreshDue, .expect, .require, .configure, .schedule, .skewClock, .storageFault, .fault, .revoke:
                continue
            default:
                break
            }
            // This step drives the client: a request to a held path may be on the wire from here on.
            for (path, state) in pending where state.since == nil { pending[path] = (index, 0) }
        }
        analysis.approaches.sort()
        return analysis
    }
}
