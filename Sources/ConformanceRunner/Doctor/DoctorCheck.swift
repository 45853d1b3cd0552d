/// Every kind of diagnosis `doctor` gives, with the protocol's rule, its section and the usual fix.
public enum DoctorCheck: String, Sendable, CaseIterable {
    // The handshake.
    case notStarted = "not-started"
    case noHello = "no-hello"
    case exitedBeforeHello = "exited-before-hello"
    case firstMessageNotHello = "first-message-not-hello"
    case protocolVersion = "protocol-version"
    case unknownRefreshTrigger = "unknown-refresh-trigger"
    // Breaches of the protocol during a probe, as the runner names them.
    case badMessage = "bad-message"
    case barrierID = "barrier-id"
    case silent = "silent"
    case closedStdout = "closed-stdout"
    case neverSettles = "never-settles"
    case exited = "exited"
    case overBudget = "over-budget"
    case abandon = "abandon"
    case helloTwice = "hello-twice"
    case forkPID = "fork-pid"
    case loopbackCounting = "loopback-counting"
    case loopbackHTTPEffect = "loopback-http-effect"
    case adapterError = "adapter-error"
    // What a probe's trace shows of the adapter's wiring.
    case commandUnanswered = "command-unanswered"
    case noTransitions = "no-transitions"
    case signInNotReported = "sign-in-not-reported"
    case signInFailed = "sign-in-failed"
    case sessionNotInStorage = "session-not-in-storage"
    case noHTTP = "no-http"
    case noContentEvent = "no-content-event"
    case tokenInOutput = "token-in-output"
    case resetKeepsState = "reset-keeps-state"
    // Notes.
    case realTimeWait = "real-time-wait"
    case noDeadline = "no-deadline"
    case slowStep = "slow-step"
    case unknownCapability = "unknown-capability"
    case noCause = "no-cause"

    public var severity: Diagnosis.Severity {
        switch self {
        case .realTimeWait, .noDeadline, .slowStep, .unknownCapability, .noCause: .note
        default: .problem
        }
    }

    private static let protocolDoc = "docs/adapter-protocol.md"

    public var section: String {
        switch self {
        case .notStarted, .badMessage, .overBudget: Self.protocolDoc + "#framing"
        case .noHello, .exitedBeforeHello, .unknownCapability, .firstMessageNotHello, .protocolVersion, .unknownRefreshTrigger, .helloTwice,
             .forkPID, .resetKeepsState: Self.protocolDoc + "#handshake"
        case .barrierID, .silent, .closedStdout, .neverSettles: Self.protocolDoc + "#clock-timers-and-barriers"
        case .exited: Self.protocolDoc + "#errors"
        case .abandon: Self.protocolDoc + "#abandoning-an-effect"
        case .loopbackCounting, .loopbackHTTPEffect: Self.protocolDoc + "#loopback-http"
        case .adapterError: Self.protocolDoc
        case .commandUnanswered: Self.protocolDoc + "#commands-the-app-and-the-operating-system"
        case .signInFailed: Self.protocolDoc + "#the-worlds-endpoints"
        case .noTransitions, .signInNotReported: Self.protocolDoc + "#transitions-and-the-session-generation"
        case .sessionNotInStorage, .noHTTP, .noCause: Self.protocolDoc + "#effects-requests-the-runner-answers-with-a-reply"
        case .noContentEvent, .tokenInOutput: Self.protocolDoc + "#events-no-reply"
        case .realTimeWait, .noDeadline: "docs/porting-guide.md#real-time-waits"
        case .slowStep: "README.md#exit-codes"
        }
    }

    public var rule: String {
        switch self {
        case .notStarted: "the runner starts the adapter with /bin/sh -c COMMAND from the current directory"
        case .noHello: "the adapter speaks first: one 'hello' line within --timeout of starting"
        case .exitedBeforeHello: "the adapter runs until its stdin closes, and says 'hello' first"
        case .firstMessageNotHello: "the first line on stdout is the 'hello'; logs go to stderr or 'log' messages"
        case .protocolVersion: "this runner speaks protocol 1; the hello's 'protocol' must be 1"
        case .unknownRefreshTrigger: "'refreshTriggers' lists only unauthorized, expiry and background"
        case .badMessage: "stdout carries one JSON object per line, UTF-8, each a message of the protocol"
        case .barrierID: "a barrier is answered once, with the id the runner sent, when the client is idle"
        case .silent: "every barrier is answered as soon as the client has nothing left to do but wait for replies"
        case .closedStdout: "the adapter keeps stdout open until it exits"
        case .neverSettles: "an idle client sends nothing; the runner waits for a barrier answer between rounds"
        case .exited: "the adapter runs until the runner closes its stdin or kills it"
        case .overBudget: "a case holds at most 32 MiB and 20,000 events of adapter output"
        case .abandon: "'abandon' names an 'http' or 'sleep' effect the adapter sent and the runner has not answered"
        case .helloTwice: "a process says 'hello' once (again only after a 'reset' or as a new forked instance)"
        case .forkPID: "with 'fork', each hello's 'pid' is a process of the adapter's group other than the adapter itself"
        case .loopbackCounting: "in loopback mode each barrier answer carries 'httpStarted': every HTTP request the client started"
        case .loopbackHTTPEffect: "an adapter in loopback mode sends its HTTP to the runner's server, not as 'http' effects"
        case .adapterError: "the adapter speaks protocol v1 on stdin/stdout"
        case .commandUnanswered: "every command gets exactly one 'result' with its id, 'ok' or 'error'"
        case .noTransitions: "every change of the session state is a 'transition' event"
        case .signInNotReported: "a sign-in answered 'ok' has moved the session to 'authenticated', reported by a 'transition'"
        case .signInFailed: "the world accepts each account's password at its sign-in endpoint, as the welcome's world profile describes it"
        case .sessionNotInStorage: "tokens live in secure storage, which the runner plays: 'storage' effects"
        case .noHTTP: "the client's HTTP reaches the world: 'http' effects, or requests to the loopback server"
        case .noContentEvent: "content the app shows is reported as a 'ui' event of kind 'content' with its contentId"
        case .tokenInOutput: "no token value appears in logs, stderr, UI events or results (LOG-NO-TOKEN-VALUES)"
        case .resetKeepsState: "after 'reset' the adapter is a fresh process: no client, no session, no timers"
        case .realTimeWait: "the runner's clock is virtual; every wait is a 'sleep' effect"
        case .noDeadline: "a real stack gives up on a request; the deadline is a 'sleep' raced with the request, then 'abandon'"
        case .slowStep: "a step of one command gets --timeout seconds before the case is an error"
        case .noCause: "an 'http' effect's 'cause' (in loopback mode the X-Conformance-Cause header) names the command it serves; the oracles that tell a request's own refresh from another's read it"
        case .unknownCapability: "capabilities are background-refresh, offline-browsing, reset and fork; others are ignored"
        }
    }

    public var fix: String {
        switch self {
        case .notStarted: "run the command by hand from here; a program in this folder needs './' (or an absolute path)"
        case .noHello: "write the hello at start and flush stdout after every line (python3 -u, System.out.flush(), stdout.write callback)"
        case .exitedBeforeHello: "run the command by hand: the stderr tail above says why it ended"
        case .firstMessageNotHello: "print nothing to stdout before the hello; send diagnostics to stderr"
        case .protocolVersion: "send \"protocol\":1"
        case .unknownRefreshTrigger: "drop the unknown name, or leave 'refreshTriggers' out and let the runner find out"
        case .badMessage: "write compact JSON (no pretty printing), one message per line, and keep prints off stdout"
        case .barrierID: "echo the barrier's 'id' exactly"
        case .silent: "answer a barrier when your queue is empty and every effect waits for its reply; flush stdout"
        case .closedStdout: "keep stdout open; exit instead if the adapter is done"
        case .neverSettles: "send nothing while idle: a timer or a poll is a 'sleep' effect, a log only when something happens"
        case .exited: "read the stderr tail: an exception in the adapter or the client ended the process"
        case .overBudget: "log less: a message or a log line per event, not per byte"
        case .abandon: "abandon only an 'http' or 'sleep' effect you sent and whose reply has not arrived"
        case .helloTwice: "say hello once per process, and once after each 'reset'"
        case .forkPID: "report the forked child's pid (os.getpid() in the child), and fork from the adapter's own process"
        case .loopbackCounting: "count a request when the client starts it (an interceptor before the send) and put the count in every barrier answer"
        case .loopbackHTTPEffect: "send requests to the welcome's baseURL, or drop \"http\":\"loopback\" from the hello"
        case .adapterError: "read the reason and the stderr tail"
        case .commandUnanswered: "answer every command with one 'result' (an error result if it fails), even one the client cannot perform"
        case .noTransitions: "emit a 'transition' with from, to, account and generation on every state change"
        case .signInNotReported: "emit the transition to 'authenticated' before the sign-in's result"
        case .signInFailed: "send the sign-in to the profile's path with its field names (--world picks the profile), and pass the command's email and password through unchanged"
        case .sessionNotInStorage: "route the client's keychain or keystore through 'storage' effects (set, get, delete)"
        case .noHTTP: "route the client's HTTP through 'http' effects, or declare \"http\":\"loopback\" and use the welcome's baseURL"
        case .noContentEvent: "emit {\"type\":\"ui\",\"event\":\"content\",...} with the response's contentId when content is shown"
        case .tokenInOutput: "log handles or hashes of tokens, never their values"
        case .resetKeepsState: "on 'reset' drop the client and every in-memory state, then say hello as a new process"
        case .realTimeWait: "replace time.sleep, Thread.sleep, setTimeout and library timeouts with 'sleep' effects"
        case .noDeadline: "race each request with a 'sleep' of its deadline and send 'abandon' when the sleep wins (--request-timeout in the examples)"
        case .slowStep: "find where the adapter spends real time (a start-up per command, a real sleep); the step limit is --timeout"
        case .noCause: "pass the command id down to the request (a task-local, a header an interceptor adds) and send it as 'cause'"
        case .unknownCapability: "check the spelling, or drop it"
        }
    }
}
