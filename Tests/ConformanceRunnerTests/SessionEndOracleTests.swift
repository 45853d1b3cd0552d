import ConformanceProtocol
@testable import ConformanceRunner
import Testing

@Suite("oracle: session-end-ends-pending-requests")
struct SessionEndEndsPendingRequestsTests {
    /// Alice signed in and asked for her inbox; the request is on the wire, held by the world, when she signs out
    /// (or `ending` otherwise: a switch, a rejection, which no command asks for).
    /// `settled`: a result the client sends for it after the command, before the end's transition.
    static func signedOutWithRequestOnTheWire(settled: CommandResult? = nil,
                                              ending: (command: CommandKind?, transition: String) = (.signOut, "sign-out"))
        -> CraftedTrace {
        var crafted = CraftedTrace()
        let tokens = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        crafted.add(.received(.http(id: "e42", cause: "c7", HTTPRequestMessage(
            method: "GET", path: "/resources/inbox", headers: ["Authorization": "Bearer \(tokens.access)"]))))
        crafted.step = 1
        if let kind = ending.command { crafted.add(.sent(.command(AppCommand(id: "c8", kind: kind)))) }
        if let settled { crafted.add(.received(.result(settled))) }
        crafted.transition(ending.transition, from: "authenticated", to: "signedOut")
        return crafted
    }

    static let ended = ErrorInfo(code: "sessionEnded", definite: true)

    @Test("a pending request failed in the sign-out's step passes")
    func failedInTheStepPasses() throws {
        var crafted = Self.signedOutWithRequestOnTheWire()
        crafted.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try crafted.findings(SessionEndEndsPendingRequests()).isEmpty)
    }

    @Test("a pending request answered ok in the sign-out's step fails: the sign-out ended it, it did not succeed")
    func okInTheStepFails() throws {
        var crafted = Self.signedOutWithRequestOnTheWire()
        crafted.add(.received(.result(CommandResult(id: "c7"))))
        let findings = try crafted.findings(SessionEndEndsPendingRequests())
        #expect(findings.map(\.requirements) == [["SIGNOUT-BLOCK-AND-CLEAR"]], "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("got an ok result") == true, "\(findings.map(\.message))")
    }

    @Test("a pending request answered ok between the sign-out command and the sign-out's transition fails too")
    func okBeforeTheTransitionFails() throws {
        let findings = try Self.signedOutWithRequestOnTheWire(settled: CommandResult(id: "c7")).findings(SessionEndEndsPendingRequests())
        #expect(findings.first?.message.contains("got an ok result") == true, "\(findings.map(\.message))")
        #expect(try Self.signedOutWithRequestOnTheWire(settled: CommandResult(id: "c7", error: Self.ended))
            .findings(SessionEndEndsPendingRequests()).isEmpty)
    }

    @Test("an ok result for a request the session's end cut off is charged by who ended it", arguments: [
        (CommandKind?.some(.signOut), "sign-out", "SIGNOUT-BLOCK-AND-CLEAR"),
        (.switchAccount, "account-switch", "EPOCH-DISCARD-STALE-RESPONSES"),
        (nil, "refresh-rejected", "REFRESH-REJECTION-CANCELS-PENDING"),
    ])
    func chargedByWhoEnded(command: CommandKind?, transition: String, requirement: String) throws {
        var ok = Self.signedOutWithRequestOnTheWire(ending: (command, transition))
        ok.add(.received(.result(CommandResult(id: "c7"))))
        let findings = try ok.findings(SessionEndEndsPendingRequests())
        #expect(findings.map(\.requirements) == [[requirement]], "\(findings.map(\.message))")
        var failed = Self.signedOutWithRequestOnTheWire(ending: (command, transition))
        failed.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try failed.findings(SessionEndEndsPendingRequests()).isEmpty)
    }

    @Test("after a switch the old generation's request may fail when its response returns, as the epoch check does")
    func switchFailsWhenTheResponseReturns() throws {
        /// Alice's response comes back a step after the switch, and the client reports `result` for it.
        func returnedAfterSwitch(_ result: CommandResult) throws -> [Finding] {
            var crafted = Self.signedOutWithRequestOnTheWire(ending: (.switchAccount, "account-switch"))
            crafted.step = 2
            crafted.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: 200, body: ["contentId": "content-1"])))))
            crafted.add(.received(.result(result)))
            return try crafted.findings(SessionEndEndsPendingRequests())
        }
        #expect(try returnedAfterSwitch(CommandResult(id: "c7", error: ErrorInfo(code: "cancelled", definite: true))).isEmpty)

        let findings = try returnedAfterSwitch(CommandResult(id: "c7"))
        #expect(findings.map(\.requirements) == [["EPOCH-DISCARD-STALE-RESPONSES"]], "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("must be discarded") == true, "\(findings.map(\.message))")
    }

    @Test("a rejection fails at once a request waiting on the session; one on the wire may fail when its response returns")
    func rejectionCancelsWaitingRequestsAtOnce() throws {
        var onTheWire = Self.signedOutWithRequestOnTheWire(ending: (nil, "refresh-rejected"))
        onTheWire.step = 2
        onTheWire.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: 401)))))
        onTheWire.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try onTheWire.findings(SessionEndEndsPendingRequests()).isEmpty)

        var waiting = CraftedTrace()
        _ = waiting.signInAlice()
        waiting.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        waiting.step = 1
        waiting.transition("refresh-rejected", from: "refreshing", to: "signedOut")
        let never = try waiting.findings(SessionEndEndsPendingRequests())
        #expect(never.map(\.requirements) == [["REFRESH-REJECTION-CANCELS-PENDING"]], "\(never.map(\.message))")
        #expect(never.first?.message.contains("never got a result") == true, "\(never.map(\.message))")
        waiting.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try waiting.findings(SessionEndEndsPendingRequests()).isEmpty)
    }

    @Test("a request whose response was in before the end began may report that success after the end, in its step")
    func servedBeforeTheEndPasses() throws {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        crafted.add(.received(.http(id: "e42", cause: "c7", HTTPRequestMessage(method: "GET", path: "/resources/inbox"))))
        crafted.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: 200, body: ["contentId": "content-1"])))))
        crafted.transition("refresh-rejected", from: "refreshing", to: "signedOut")
        crafted.add(.received(.result(CommandResult(id: "c7"))))
        #expect(try crafted.findings(SessionEndEndsPendingRequests()).isEmpty)
    }

    @Test("a pending request failed only in a later step, or only after the world answered it, fails")
    func lateResultFails() throws {
        var nextStep = Self.signedOutWithRequestOnTheWire()
        nextStep.step = 2
        nextStep.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try nextStep.findings(SessionEndEndsPendingRequests()).first?.message.contains("only at step 3") == true)

        var afterReply = Self.signedOutWithRequestOnTheWire()
        afterReply.add(.sent(.reply(id: "e42", .response(HTTPResponseMessage(status: 200, body: ["contentId": "content-1"])))))
        afterReply.add(.received(.result(CommandResult(id: "c7", error: Self.ended))))
        #expect(try afterReply.findings(SessionEndEndsPendingRequests()).first?.message.contains("after the world answered") == true)
    }

    @Test("a request answered before the sign-out, or a process killed in the sign-out's step, is not judged")
    func answeredBeforeOrKilledIsNotJudged() throws {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.add(.sent(.command(AppCommand(id: "c7", kind: .request, resource: "inbox"))))
        crafted.add(.received(.result(CommandResult(id: "c7"))))
        crafted.transition("sign-out", from: "authenticated", to: "signedOut")
        #expect(try crafted.findings(SessionEndEndsPendingRequests()).isEmpty)

        var killed = Self.signedOutWithRequestOnTheWire()
        killed.kill()
        #expect(try killed.findings(SessionEndEndsPendingRequests()).isEmpty)
    }
}
