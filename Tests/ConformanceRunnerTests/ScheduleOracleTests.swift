import ConformanceProtocol
@testable import ConformanceRunner
import Foundation
import JSONCore
import SimulatedWorld
import SpecModel
import Testing

/// A trace written by hand, event by event, against a real world (so tokens are the auth server's), for the
/// oracles that must hold under any schedule: each is shown firing on the crafted wrong ordering and silent on
/// the right one. (The reference passing them in every case, and under a kill at every storage change, is
/// ReferenceConformanceTests' and KillSweepTests'.)
struct CraftedTrace {
    var world = World(seed: 7)
    var trace = Trace()
    var instance = 1
    var time = 0.0
    var step = 0
    private var counter = 0

    init() { add(.processStarted(instance: 1)) }

    @discardableResult
    mutating func add(_ kind: TraceEvent.Kind) -> Int {
        trace.append(kind, step: step, instance: instance, time: time)
        return trace.events.count
    }

    mutating func nextID(_ prefix: String) -> String {
        counter += 1
        return "\(prefix)\(counter)"
    }

    /// A request the world answers at once as it would; returns the reply.
    @discardableResult
    mutating func exchange(_ request: HTTPRequestMessage, cause: String? = nil) -> HTTPOutcome {
        let id = nextID("e")
        add(.received(.http(id: id, cause: cause, request)))
        let outcome = world.serve(request)
        switch outcome {
        case .response(let response): add(.sent(.reply(id: id, .response(response))))
        case .failure(let failure): add(.sent(.reply(id: id, .failure(failure))))
        }
        return outcome
    }

    /// Alice signs in: the login and the transition. Returns her access and refresh tokens.
    mutating func signInAlice() -> (access: String, refresh: String) {
        let outcome = exchange(HTTPRequestMessage(method: "POST", path: "/auth/login",
                                                  body: ["email": "alice@example.com", "password": "correct horse battery"]))
        guard case .response(let response) = outcome else { return ("", "") }
        transition("sign-in-succeeded", from: "signingIn", to: "authenticated", account: "acct-alice")
        return (response.body["access_token"]?.string ?? "", response.body["refresh_token"]?.string ?? "")
    }

    mutating func transition(_ name: String?, from: String?, to: String, account: String? = nil) {
        add(.received(.transition(TransitionEvent(transition: name, from: from, to: to, account: account, generation: 1, reason: nil))))
    }

    mutating func kill() { add(.processKilled(instance: instance, reason: "killed by the case")) }

    mutating func relaunch() {
        instance += 1
        add(.processStarted(instance: instance))
    }

    func findings(_ oracle: any Oracle, capabilities: [String] = [], offlineResources: [String] = []) throws -> [Finding] {
        let machine = try #require(try Harness.bundle(Harness.caseFile("""
              - id: placeholder
                title: A case so the spec loads
                requirements: [SESSION-STATE-MACHINE]
                steps:
                  - launch: {}

            """)).stateMachine)
        return oracle.check(OracleContext(index: TraceIndex(trace), trace: trace, world: world, machine: machine,
                                          capabilities: capabilities, offlineResources: offlineResources, capturedLog: ""))
    }
}

@Suite("oracle: ended-session-never-resurrected")
struct EndedSessionNeverResurrectedTests {
    static func signedOutThenRelaunched() -> (CraftedTrace, access: String) {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.received(.http(id: "e9", cause: nil, HTTPRequestMessage(method: "GET", path: "/me", headers: ["Authorization": "Bearer \(tokens.access)"]))))
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        crafted.kill()
        crafted.relaunch()
        return (crafted, tokens.access)
    }

    @Test("a session announced as ended that a later process validates again fails SIGNOUT-BLOCK-AND-CLEAR")
    func resurrectedSessionFails() throws {
        var (crafted, access) = Self.signedOutThenRelaunched()
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/me", headers: ["Authorization": "Bearer \(access)"]))
        let findings = try crafted.findings(EndedSessionNeverResurrected())
        #expect(findings.map(\.requirements) == [["SIGNOUT-BLOCK-AND-CLEAR"]])
        #expect(findings.first?.message.contains("came back in process 2") == true, "\(findings.map(\.message))")
        #expect(findings.first?.message.contains(access) == false, "a finding names handles, never token values")
    }

    @Test("presenting the ended session's refresh token after a restart fails too; revoking it does not")
    func refreshTokenOfEndedSession() throws {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.transition("account-switch", from: "authenticated", to: "signingIn")
        crafted.kill()
        crafted.relaunch()
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/revoke", body: ["refresh_token": .string(tokens.refresh)]))
        #expect(try crafted.findings(EndedSessionNeverResurrected()).isEmpty)
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]))
        #expect(try crafted.findings(EndedSessionNeverResurrected()).map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]])
    }

    @Test("a restart that stays signed out raises no finding")
    func staysSignedOutPasses() throws {
        var (crafted, _) = Self.signedOutThenRelaunched()
        crafted.transition("restore-failed", from: "restoring", to: "signedOut")
        #expect(try crafted.findings(EndedSessionNeverResurrected()).isEmpty)
    }
}

@Suite("oracle: content-belongs-to-current-account after a sign-out the device refused")
struct ContentAfterRefusedEndTests {
    /// Alice signs in and sees her news; she signs out, and the process sends `record` (the session record's
    /// change) answered with `reply`, then dies. The next process restores and shows her cached news.
    static func restoredAfterSignOut(record reply: ReplyBody?) throws -> [Finding] {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        let outcome = crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/news",
                                                          headers: ["Authorization": "Bearer \(tokens.access)"]))
        guard case .response(let response) = outcome, let contentID = response.body["contentId"]?.string else {
            Issue.record("the world served no news")
            return []
        }
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "news", account: "acct-alice", contentID: contentID))))
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        if let reply {
            crafted.add(.received(.storage(id: "s1", operation: .delete, key: "session.record", value: nil, accessibility: nil)))
            crafted.add(.sent(.reply(id: "s1", reply)))
        }
        crafted.kill()
        crafted.relaunch()
        crafted.transition(nil, from: nil, to: "restoring")
        crafted.add(.received(.ui(UIEvent(kind: .content, resource: "news", account: "acct-alice", contentID: contentID))))
        return try crafted.findings(ContentBelongsToCurrentAccount(), capabilities: ["offline-browsing"], offlineResources: ["news"])
    }

    @Test("cached news shown while restoring after a sign-out whose every storage change was refused raises no finding")
    func refusedEndPasses() throws {
        #expect(try Self.restoredAfterSignOut(record: .error(ProtocolErrorCode.writeFailed.info("the write failed"))).isEmpty)
    }

    @Test("the same news after a sign-out the device stored, or one that changed nothing, fails RESTORE-NO-PRIVATE-BEFORE-VALIDATION")
    func storedOrUntriedEndFails() throws {
        for reply: ReplyBody? in [.done, nil] {
            #expect(try Self.restoredAfterSignOut(record: reply).map(\.requirements) == [["RESTORE-NO-PRIVATE-BEFORE-VALIDATION"]])
        }
    }
}

@Suite("oracle: every-command-answered-once")
struct EveryCommandAnsweredOnceTests {
    static func requestCommand() -> (CraftedTrace, access: String) {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        return (crafted, tokens.access)
    }

    @Test("a command left without a result though the world answered everything fails")
    func unansweredCommandFails() throws {
        var (crafted, access) = Self.requestCommand()
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(access)"]), cause: "c7")
        let findings = try crafted.findings(EveryCommandAnsweredOnce())
        #expect(findings.map(\.requirements) == [["SESSION-STATE-MACHINE"]], "\(findings.map(\.message))")
    }

    @Test("a command answered twice fails")
    func twoResultsFail() throws {
        var (crafted, _) = Self.requestCommand()
        crafted.add(.received(.result(CommandResult(id: "c7"))))
        crafted.add(.received(.result(CommandResult(id: "c7"))))
        #expect(try crafted.findings(EveryCommandAnsweredOnce()).count == 1)
    }

    @Test("a command waiting for a reply the world holds, or whose process died, is not judged")
    func waitingOrKilledPasses() throws {
        var (held, access) = Self.requestCommand()
        held.add(.received(.http(id: "e42", cause: "c7", HTTPRequestMessage(method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(access)"]))))
        #expect(try held.findings(EveryCommandAnsweredOnce()).isEmpty)
        var killed = Self.requestCommand().0
        killed.kill()
        #expect(try killed.findings(EveryCommandAnsweredOnce()).isEmpty)
        var answered = Self.requestCommand().0
        answered.add(.received(.result(CommandResult(id: "c7"))))
        #expect(try answered.findings(EveryCommandAnsweredOnce()).isEmpty)
    }

    /// A reboot, then a launch whose restore reads secure storage and is told it is locked; `unlocked`: the
    /// device is unlocked afterwards, and the client still never answers the launch.
    static func launchAfterReboot(unlocked: Bool) -> CraftedTrace {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.step = 1
        crafted.add(.stepStarted(index: 1, kind: "reboot"))
        crafted.kill()
        crafted.relaunch()
        crafted.step = 2
        crafted.add(.stepStarted(index: 2, kind: "launch"))
        crafted.add(.sent(.command(AppCommand(id: "c2", kind: .launch))))
        crafted.transition(nil, from: nil, to: "restoring")
        crafted.add(.received(.storage(id: "s1", operation: .get, key: "session", value: nil, accessibility: nil)))
        crafted.add(.sent(.reply(id: "s1", .error(ProtocolErrorCode.locked.info("sealed until the first unlock")))))
        if unlocked { unlock(&crafted, step: 3, command: "c3") }
        return crafted
    }

    /// An `unlock` step at `step`, its command answered.
    static func unlock(_ crafted: inout CraftedTrace, step: Int, command: String) {
        crafted.step = step
        crafted.add(.stepStarted(index: step, kind: "unlock"))
        crafted.add(.sent(.command(AppCommand(id: command, kind: .unlock))))
        crafted.add(.received(.result(CommandResult(id: command))))
    }

    @Test("a launch outstanding after a reboot while the device was never unlocked is not judged (storage is sealed)")
    func launchWhileSealedPasses() throws {
        #expect(try Self.launchAfterReboot(unlocked: false).findings(EveryCommandAnsweredOnce()).isEmpty)
    }

    /// After the launch whose restore is blocked by sealed storage, a request that waits for the restore.
    static func requestWaitingOnSealedRestore(unlocked: Bool) -> CraftedTrace {
        var crafted = launchAfterReboot(unlocked: false)
        crafted.step = 3
        crafted.add(.stepStarted(index: 3, kind: "request"))
        crafted.add(.sent(.command(AppCommand(id: "c4", kind: .request, resource: "inbox"))))
        if unlocked { unlock(&crafted, step: 4, command: "c5") }
        return crafted
    }

    @Test("a request that waits for a restore blocked by sealed storage is not judged, as its launch is not (000: restoring)")
    func requestWaitingOnSealedRestorePasses() throws {
        #expect(try Self.requestWaitingOnSealedRestore(unlocked: false).findings(EveryCommandAnsweredOnce()).isEmpty)
    }

    @Test("once the device was unlocked, the launch and the request still unanswered both fail")
    func requestAfterUnlockFails() throws {
        let findings = try Self.requestWaitingOnSealedRestore(unlocked: true).findings(EveryCommandAnsweredOnce())
        #expect(findings.map(\.message) == [
            "command c2 (launch) never got a result, though the world answered everything the client asked",
            "command c4 (request) never got a result, though the world answered everything the client asked",
        ])
    }

    @Test("a launch still outstanding once the device was unlocked after the reboot fails")
    func launchAfterUnlockFails() throws {
        let findings = try Self.launchAfterReboot(unlocked: true).findings(EveryCommandAnsweredOnce())
        #expect(findings.map(\.message) == ["command c2 (launch) never got a result, though the world answered everything the client asked"])
    }
}

@Suite("oracle: ended-account-leaves-no-preferences")
struct EndedAccountLeavesNoPreferencesTests {
    static func signedOut(keeping key: String?) -> CraftedTrace {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        _ = crafted.world.storage.preference(.set, key: "cache/acct-alice/news", value: "{}")
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        if key == nil { _ = crafted.world.storage.preference(.delete, key: "cache/acct-alice/news", value: nil) }
        return crafted
    }

    @Test("an account's cache entry left in preferences after its sign-out fails SIGNOUT-BLOCK-AND-CLEAR")
    func leftoverFails() throws {
        let findings = try Self.signedOut(keeping: "cache/acct-alice/news").findings(EndedAccountLeavesNoPreferences())
        #expect(findings.map(\.requirements) == [["SIGNOUT-BLOCK-AND-CLEAR"]])
        #expect(findings.first?.message.contains("'cache/acct-alice/news'") == true)
    }

    @Test("preferences cleared of the account, or a process killed before it settled, raise no finding")
    func clearedOrKilledPasses() throws {
        #expect(try Self.signedOut(keeping: nil).findings(EndedAccountLeavesNoPreferences()).isEmpty)
        var killed = Self.signedOut(keeping: "cache/acct-alice/news")
        killed.kill()
        #expect(try killed.findings(EndedAccountLeavesNoPreferences()).isEmpty)
    }

    /// After the sign-out, the client sends a preferences change of `key`, answered with `reply`.
    static func signedOut(changing key: String, _ operation: StorageOperation, reply: ReplyBody) -> CraftedTrace {
        var crafted = signedOut(keeping: "cache/acct-alice/news")
        crafted.add(.received(.preferences(id: "p1", operation: operation, key: key, value: operation == .set ? "{}" : nil)))
        crafted.add(.sent(.reply(id: "p1", reply)))
        return crafted
    }

    static let refused = ReplyBody.error(ProtocolErrorCode.writeFailed.info("the preferences write failed"))

    @Test("leftovers of an account whose removal the world refused after the end (preferencesWriteFailure) raise no finding")
    func refusedRemovalPasses() throws {
        #expect(try Self.signedOut(changing: "cache/acct-alice/news", .delete, reply: Self.refused)
            .findings(EndedAccountLeavesNoPreferences()).isEmpty)
        #expect(try Self.signedOut(changing: "cache/acct-alice/.index", .delete, reply: Self.refused)
            .findings(EndedAccountLeavesNoPreferences()).isEmpty)
        // A note naming the account, kept because its removal was refused: the key itself names nobody.
        var note = Self.signedOut(changing: "session/ending", .delete, reply: Self.refused)
        _ = note.world.storage.preference(.set, key: "session/ending", value: #"{"account":"acct-alice"}"#)
        _ = note.world.storage.preference(.delete, key: "cache/acct-alice/news", value: nil)
        #expect(try note.findings(EndedAccountLeavesNoPreferences()).isEmpty)
    }

    @Test("a refused change of another account's key, or a change that succeeded, excuses nothing")
    func otherRefusalsStillFail() throws {
        for crafted in [Self.signedOut(changing: "cache/acct-bob/news", .delete, reply: Self.refused),
                        Self.signedOut(changing: "cache/acct-alice/news", .delete, reply: .done)] {
            #expect(try crafted.findings(EndedAccountLeavesNoPreferences()).map(\.requirements) == [["SIGNOUT-BLOCK-AND-CLEAR"]])
        }
    }
}

@Suite("oracle: retryable-refresh-backs-off")
struct RetryableRefreshBacksOffTests {
    static func timedOutRefresh() -> (CraftedTrace, refresh: String) {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.received(.http(id: "r1", cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(tokens.refresh)]))))
        crafted.add(.sent(.reply(id: "r1", .failure(ProtocolErrorCode.timeout.info("no response in time")))))
        return (crafted, tokens.refresh)
    }

    @Test("a refresh sent again at the virtual time its retryable failure arrived fails REFRESH-RETRYABLE-BACKOFF")
    func immediateRetryFails() throws {
        var (crafted, refresh) = Self.timedOutRefresh()
        crafted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(refresh)]))
        #expect(try crafted.findings(RetryableRefreshBacksOff()).map(\.requirements) == [["REFRESH-RETRYABLE-BACKOFF"]])
    }

    @Test("more than ten attempts within a minute of an outage fail, even spaced apart")
    func tooManyAttemptsFail() throws {
        var (crafted, refresh) = Self.timedOutRefresh()
        for attempt in 1...11 {
            crafted.time = Double(attempt) * 5
            let id = "r\(attempt + 1)"
            crafted.add(.received(.http(id: id, cause: nil, HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(refresh)]))))
            crafted.add(.sent(.reply(id: id, .failure(ProtocolErrorCode.offline.info("offline")))))
        }
        let findings = try crafted.findings(RetryableRefreshBacksOff())
        #expect(findings.contains { $0.message.contains("within a minute") }, "\(findings.map(\.message))")
    }

    @Test("a retry after the clock moved on, or one a command prompted, raises no finding")
    func backedOffPasses() throws {
        var (later, refresh) = Self.timedOutRefresh()
        later.time = 2
        later.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(refresh)]))
        #expect(try later.findings(RetryableRefreshBacksOff()).isEmpty)
        var prompted = Self.timedOutRefresh().0
        prompted.add(.sent(.command(AppCommand(id: "c3", kind: .online))))
        prompted.exchange(HTTPRequestMessage(method: "POST", path: "/auth/refresh", body: ["refresh_token": .string(refresh)]))
        #expect(try prompted.findings(RetryableRefreshBacksOff()).isEmpty)
    }
}

@Suite("oracle: no-token-in-client-output, encoded")
struct EncodedSecretTests {
    static func signedIn() -> (CraftedTrace, access: String) {
        var crafted = CraftedTrace()
        crafted.add(.sent(.command(AppCommand(id: "c1", kind: .signIn, email: "alice@example.com", password: "correct horse battery"))))
        let tokens = crafted.signInAlice()
        return (crafted, tokens.access)
    }

    static func requirements(_ crafted: CraftedTrace) throws -> [[String]] {
        try crafted.findings(NoTokenInClientOutput()).map(\.requirements)
    }

    @Test("a token logged as base64, base64url, hex or inside a longer base64 text fails LOG-NO-TOKEN-VALUES",
          arguments: ["base64", "base64url", "hex", "embedded"])
    func encodedTokenFails(encoding: String) throws {
        var (crafted, access) = Self.signedIn()
        let data = Data(access.utf8)
        let text = switch encoding {
        case "base64": data.base64EncodedString()
        case "base64url": data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        case "hex": data.map { String(format: "%02X", $0) }.joined()
        default: Data(#"{"user":"alice","token":"\#(access)"}"#.utf8).base64EncodedString()
        }
        crafted.add(.received(.log(level: "debug", message: "session \(text)")))
        #expect(try Self.requirements(crafted) == [["LOG-NO-TOKEN-VALUES"]])
    }

    @Test("a token in a request URL fails STORAGE-NO-PLAINTEXT-TOKENS")
    func tokenInURLFails() throws {
        var (crafted, access) = Self.signedIn()
        crafted.exchange(HTTPRequestMessage(method: "GET", path: "/resources/inbox?access_token=\(access)"))
        #expect(try Self.requirements(crafted) == [["STORAGE-NO-PLAINTEXT-TOKENS"]])
    }

    @Test("a sign-in password logged raw or encoded, or kept in preferences, fails", arguments: ["raw", "percent", "form", "base64"])
    func passwordFails(form: String) throws {
        var (crafted, _) = Self.signedIn()
        let password = "correct horse battery"
        let text = switch form {
        case "raw": password
        case "percent": "correct%20horse%20battery"
        case "form": "correct+horse+battery"
        default: Data(password.utf8).base64EncodedString()
        }
        crafted.add(.received(.log(level: "info", message: "login form=\(text)")))
        crafted.add(.received(.preferences(id: "p1", operation: .set, key: "lastLogin", value: text)))
        #expect(try Self.requirements(crafted) == [["LOG-NO-TOKEN-VALUES"], ["STORAGE-NO-PLAINTEXT-TOKENS"]])
    }

    @Test("handles, email addresses and short unrelated text raise no finding")
    func cleanOutputPasses() throws {
        var (crafted, _) = Self.signedIn()
        crafted.add(.received(.log(level: "info", message: "signed in alice@example.com with at#1 (base64 aGVsbG8=, hex 68656c6c6f)")))
        #expect(try Self.requirements(crafted).isEmpty)
    }
}

/// A revocation answered 5xx never revoked anything ("Timeouts, 5xx and offline are retryable", 001): its entry
/// stays queued and is sent again at the next chance. docs/adapter-protocol.md says the same to adapter authors.
@Suite("oracle: offline-revocation-retried")
struct OfflineRevocationRetriedTests {
    /// Alice signs in and out; her revocation is answered `status`, then the app comes back online (step 2) and
    /// sends nothing more.
    static func signedOut(revocationAnswered status: Int) -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        crafted.add(.received(.http(id: "r1", cause: nil, HTTPRequestMessage(
            method: "POST", path: "/auth/revoke", body: ["token": .string(tokens.refresh)]))))
        crafted.add(.sent(.reply(id: "r1", .response(HTTPResponseMessage(status: status, body: ["error": "x"])))))
        crafted.step = 2
        crafted.add(.stepStarted(index: 2, kind: "online"))
        crafted.add(.sent(.command(AppCommand(id: "c9", kind: .online))))
        crafted.add(.received(.result(CommandResult(id: "c9"))))
        return crafted
    }

    @Test("a revocation answered 503 and dropped is charged SIGNOUT-REVOCATION-RETRY once the app is back online")
    func droppedAfter5xxFails() throws {
        let findings = try Self.signedOut(revocationAnswered: 503).findings(OfflineRevocationRetried())
        #expect(findings.map(\.requirements) == [["SIGNOUT-REVOCATION-RETRY"]])
        #expect(findings.first?.message.contains("(HTTP 503)") == true, "\(findings.map(\.message))")
    }

    @Test("a revocation answered 400 (the server got it: retrying cannot change it) may be dropped")
    func droppedAfter4xxPasses() throws {
        #expect(try Self.signedOut(revocationAnswered: 400).findings(OfflineRevocationRetried()).isEmpty)
    }

    @Test("docs/adapter-protocol.md tells adapter authors to keep a revocation answered 5xx, as the oracle requires")
    func protocolDocAgrees() throws {
        let doc = try String(contentsOf: URL(fileURLWithPath: Harness.packageRoot + "/docs/adapter-protocol.md"), encoding: .utf8)
        #expect(!doc.contains("whatever the status"))
        #expect(doc.contains("keep it when the\n  revocation timed out, could not reach the server, or was answered 5xx"))
    }
}
