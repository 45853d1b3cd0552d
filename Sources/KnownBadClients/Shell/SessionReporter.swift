import AdapterKit
import ConformanceProtocol
import Foundation
import JSONCore

/// Reporting glue, part of none of the ported apps. A naive app has no session state machine, so this turns
/// what it does (finds a token at launch, starts a refresh, clears its tokens, signs in, signs out) into the
/// transitions of Specs/state-machine.yaml that behaviour implies, counting the session generation as the
/// machine says. It only ever emits a transition that is legal from the state it last reported, so the suite
/// judges what the app does with tokens, requests, storage and screens, not how it reports.
final class SessionReporter: @unchecked Sendable {
    // @unchecked: every access to the mutable state below happens with `lock` held.
    enum State: String, Sendable {
        case restoring, authenticated, refreshing, signingIn, signedOut
    }

    private struct Transition {
        let from: State
        let to: State
        let increments: Bool
    }

    private static let machine: [String: Transition] = [
        "restore-validated": Transition(from: .restoring, to: .authenticated, increments: false),
        "restore-failed": Transition(from: .restoring, to: .signedOut, increments: true),
        "refresh-started": Transition(from: .authenticated, to: .refreshing, increments: false),
        "refresh-succeeded": Transition(from: .refreshing, to: .authenticated, increments: false),
        "refresh-rejected": Transition(from: .refreshing, to: .signedOut, increments: true),
        "sign-out": Transition(from: .authenticated, to: .signedOut, increments: true),
        "sign-out-during-refresh": Transition(from: .refreshing, to: .signedOut, increments: true),
        "sign-in-started": Transition(from: .signedOut, to: .signingIn, increments: false),
        "sign-in-succeeded": Transition(from: .signingIn, to: .authenticated, increments: true),
        "sign-in-failed": Transition(from: .signingIn, to: .signedOut, increments: false),
        "account-switch": Transition(from: .authenticated, to: .signingIn, increments: true),
    ]

    private let lock = NSLock()
    private let effects: ClientEffects
    private var state: State?
    private var generation = 1
    private var account: String?
    private var refreshesInFlight = 0
    private var lastRefreshFailure: String?

    init(effects: ClientEffects) {
        self.effects = effects
    }

    var current: State? { lock.withLock { state } }
    var currentAccount: String? { lock.withLock { account } }

    /// The process started: the entry into `restoring`, which is not a transition of the machine.
    func launched() {
        lock.withLock {
            state = .restoring
            generation = 1
            account = nil
            effects.transition(TransitionEvent(transition: nil, from: nil, to: "restoring", account: nil, generation: 1, reason: "launch"))
        }
    }

    /// The app decided at launch, however it decided.
    func restored(authenticated: Bool) {
        fire(authenticated ? "restore-validated" : "restore-failed", reason: authenticated ? "tokenPresent" : "noToken")
    }

    /// The sign-in form reached the network.
    func signInStarted() { fire("sign-in-started", reason: "userSignIn") }

    /// Sign-in ended, with the account it signed in or `nil` when it failed.
    func signInFinished(account: String?) {
        if let account {
            fire("sign-in-succeeded", reason: "credentialsAccepted", newAccount: account)
        } else {
            fire("sign-in-failed", reason: "signInFailed")
        }
    }

    /// A refresh call went out.
    func refreshStarted() {
        let first = lock.withLock {
            refreshesInFlight += 1
            return refreshesInFlight == 1
        }
        if first { fire("refresh-started", reason: "accessTokenRejected") }
    }

    /// A refresh call came back: new tokens, or the failure class.
    func refreshFinished(failure: String?) {
        lock.withLock {
            refreshesInFlight = max(0, refreshesInFlight - 1)
            if let failure { lastRefreshFailure = failure }
        }
        if failure == nil { fire("refresh-succeeded", reason: "tokensRotated") }
    }

    /// The app deleted its tokens on its own (not a user sign-out): the session is over, whatever the cause.
    func tokensCleared() {
        let (state, reason) = lock.withLock { (self.state, lastRefreshFailure ?? "tokensCleared") }
        switch state {
        case .refreshing?:
            fire("refresh-rejected", reason: reason)
        case .authenticated?:
            // Cleared outside a refresh the app reported (say, after a retried request failed): the nearest
            // path of the machine from authenticated to signedOut without the user is a rejected refresh.
            fire("refresh-started", reason: "accessTokenRejected")
            fire("refresh-rejected", reason: reason)
        default:
            break
        }
    }

    /// The user signed out. Returns whether there was a session to end.
    @discardableResult
    func userSignedOut() -> Bool {
        fire("sign-out", reason: "userSignedOut") || fire("sign-out-during-refresh", reason: "userSignedOut")
    }

    /// The user switches accounts: the current session ends and the sign-in form is up.
    func switching() {
        if fire("account-switch", reason: "switchingAccount") { return }
        if fire("sign-out-during-refresh", reason: "switchingAccount") {
            fire("sign-in-started", reason: "switchingAccount")
            return
        }
        fire("sign-in-started", reason: "userSignIn")
    }

    /// The sign-in screen is shown.
    func signInPrompt() { effects.show(UIEvent(kind: .signInPrompt)) }

    /// A screen shows a resource: whose it is comes from the response's contentId, as the runner knows.
    func show(resource: String, body: JSONValue) {
        let (account, generation) = lock.withLock { (self.account, self.generation) }
        effects.show(UIEvent(kind: .content, resource: resource, account: account, generation: generation,
                             contentID: body["contentId"]?.string))
    }

    /// Emits `name` if it is legal from the current state; returns whether it was emitted.
    @discardableResult
    private func fire(_ name: String, reason: String, newAccount: String? = nil) -> Bool {
        lock.withLock {
            guard let transition = Self.machine[name], state == transition.from else { return false }
            if transition.increments { generation += 1 }
            if let newAccount { account = newAccount }
            let reported = account
            state = transition.to
            if transition.to == .signedOut || transition.to == .signingIn { account = nil }
            if transition.to != .refreshing, transition.to != .authenticated { refreshesInFlight = 0 }
            effects.transition(TransitionEvent(transition: name, from: transition.from.rawValue, to: transition.to.rawValue,
                                               account: reported, generation: generation, reason: reason))
            return true
        }
    }
}

/// The failure class of an HTTP outcome, for transition reasons.
func failureClass(status: Int?, transport: String?) -> String {
    if let transport { return transport }
    guard let status else { return "unexpectedResponse" }
    if status >= 500 { return "serverError" }
    if status == 400 || status == 401 { return "invalidGrant" }
    return "unexpectedResponse"
}

/// A command result carrying an error code.
func failed(_ command: AppCommand, _ code: String, _ message: String, definite: Bool = true) -> CommandResult {
    CommandResult(id: command.id, error: ErrorInfo(code: code, message: message, definite: definite))
}

/// A `request` command's result, as the reference reports it.
func shown(_ command: AppCommand, resource: String, account: String?, body: JSONValue) -> CommandResult {
    CommandResult(id: command.id, content: [
        "resource": .string(resource), "account": account.map(JSONValue.string) ?? .null,
        "contentId": body["contentId"] ?? .null,
    ])
}

/// The platform string for `hello`.
var hostPlatform: String {
    #if os(Linux)
    "linux"
    #elseif os(macOS)
    "macos"
    #else
    "other"
    #endif
}
