@testable import ConformanceRunner
import ConformanceProtocol
import Testing

/// What a case keeps once it has ended (`CaseRetention`): within a fixed budget, so a run of many cases against an
/// adapter that sends near the per-case limits stays bounded; a real case's trace is kept as it was.
@Suite("What a case keeps")
struct CaseRetentionTests {
    static func outcome(_ crafted: CraftedTrace, findings: [Finding] = [], reason: String? = nil) -> CaseOutcome {
        CaseOutcome(caseID: "kept", title: "Kept", file: "kept.yaml", requirements: [], status: findings.isEmpty ? .pass : .fail,
                    findings: findings, reason: reason, stderrTail: nil, trace: crafted.trace, vault: crafted.world.vault, seed: 1)
    }

    @Test("a trace within the budget is kept as it was")
    func smallTraceKeptWhole() {
        var crafted = CraftedTrace()
        _ = crafted.signInAlice()
        crafted.add(.received(.log(level: "info", message: String(repeating: "x", count: 900))))
        let kept = Self.outcome(crafted).trace
        #expect(kept.eventCount == crafted.trace.events.count && kept.events.count == kept.eventCount)
        #expect(kept.cutMessages == 0)
        #expect(TraceRenderer(vault: crafted.world.vault).render(kept) == TraceRenderer(vault: crafted.world.vault).render(crafted.trace))
    }

    @Test("a trace over the event budget keeps its ends and the events around the evidence, with their numbers")
    func longTraceKeepsEndsAndEvidence() throws {
        var crafted = CraftedTrace()
        for index in 1..<30_000 { crafted.add(.received(.log(level: "info", message: "line \(index)"))) }
        let finding = Finding(requirements: ["R"], check: "oracle:test", message: "look here", evidence: [15_000], step: 0)
        let outcome = Self.outcome(crafted, findings: [finding])
        let numbers = outcome.trace.events.map(\.number)
        #expect(outcome.trace.eventCount == 30_000)
        #expect(numbers == Array(1...500) + Array(14_990...15_010) + Array(29_501...30_000))
        let rendered = TraceRenderer(vault: crafted.world.vault).render(outcome.trace).split(separator: "\n")
        #expect(rendered[500] == "   ... #501 to #14989 not kept (a long trace keeps its ends and the events near its findings)")
        #expect(rendered.last?.hasPrefix("#30000 ") == true)
        let excerpt = TraceRenderer(vault: crafted.world.vault).excerpt(outcome.trace, around: [15_000])
        #expect(excerpt.contains("=> #15000 < "))
    }

    @Test("a trace of small events over the byte budget is cut down the same way")
    func manyBytesCutDown() {
        var crafted = CraftedTrace()
        let text = String(repeating: "y", count: 900)
        for _ in 0..<3_000 { crafted.add(.received(.log(level: "info", message: text))) }
        let outcome = Self.outcome(crafted)
        #expect(outcome.trace.eventCount == 3_001)
        #expect(outcome.trace.events.count == 2 * CaseRetention.keptAtEachEnd)
    }

    @Test("an oversized message is kept cut, with a marker saying how big it was, and still reads as its type")
    func oversizedMessageCut() throws {
        var crafted = CraftedTrace()
        crafted.add(.received(.log(level: "info", message: String(repeating: "z", count: 60_000))))
        crafted.add(.received(.http(id: "e1", cause: nil, HTTPRequestMessage(
            method: "POST", path: "/resources/inbox", headers: ["x-filler": String(repeating: "h", count: 5_000)],
            body: .array((0..<10_000).map { .int($0) })))))
        let kept = Self.outcome(crafted).trace
        #expect(kept.cutMessages == 2 && kept.eventCount == 3)
        guard case .received(.log(_, let message)) = kept.events[1].kind,
              case .received(.http(let id, _, let request)) = kept.events[2].kind else {
            Issue.record("the cut messages changed kind: \(kept.events)")
            return
        }
        #expect(message == String(repeating: "z", count: CaseRetention.maximumStringBytes) + "…[cut: 60000 bytes]")
        #expect(id == "e1" && request.method == "POST" && request.path == "/resources/inbox")
        #expect(request.headers["x-filler"]?.hasSuffix("…[cut: 5000 bytes]") == true)
        #expect(request.body.array?.last?.string?.hasPrefix("…[cut: ") == true)
        #expect(kept.events.allSatisfy { $0.kind.keptSize <= 2 * CaseRetention.maximumMessageBytes })
    }

    @Test("a cut never leaves part of a token behind: the value becomes its handle first")
    func cutKeepsNoTokenFragment() throws {
        var crafted = CraftedTrace()
        let (access, _) = crafted.signInAlice()
        let limit = CaseRetention.maximumStringBytes
        // The token straddles the cut: its first half before the limit, the rest after.
        let text = String(repeating: "a", count: limit - access.count / 2) + access + String(repeating: "b", count: 2_000)
        crafted.add(.received(.log(level: "info", message: text)))
        let outcome = Self.outcome(crafted, reason: String(repeating: "r", count: 1_010) + access + String(repeating: "r", count: 100))
        let vault = crafted.world.vault
        // What is kept, not only what a renderer would show (it redacts again).
        guard case .received(.log(_, let kept)) = try #require(outcome.trace.events.last).kind else {
            Issue.record("the log line changed kind")
            return
        }
        #expect(kept.hasPrefix(String(repeating: "a", count: limit - access.count / 2) + "at#1"))
        #expect(vault.leaked(in: kept).isEmpty && !kept.contains(access.prefix(8)))
        #expect(vault.leaked(in: outcome.reason ?? "").isEmpty)
    }

    @Test("a case that issued more tokens than a case keeps shows handles in everything it keeps, and keeps no vault")
    func manyTokensKeptRedacted() throws {
        var crafted = CraftedTrace()
        var first = ""
        for _ in 0...(CaseRetention.maximumTokens / 2) {
            let (access, _) = crafted.signInAlice()
            if first.isEmpty { first = access }
        }
        crafted.add(.received(.log(level: "info", message: "the first access token: " + first)))
        let finding = Finding(requirements: ["R"], check: "oracle:test", message: "logged " + first, evidence: [2], step: 0)
        let outcome = Self.outcome(crafted, findings: [finding], reason: "reason " + first)
        #expect(crafted.world.vault.tokens.count > CaseRetention.maximumTokens)
        #expect(outcome.vault.tokens.isEmpty)
        guard case .received(.log(_, let kept)) = try #require(outcome.trace.events.last).kind else {
            Issue.record("the log line changed kind")
            return
        }
        #expect(kept == "the first access token: at#1")
        let rendered = TraceRenderer(vault: outcome.vault).render(outcome.trace)
        #expect(crafted.world.vault.leaked(in: rendered).isEmpty && crafted.world.vault.contained(in: rendered).isEmpty)
        #expect(rendered.contains("rt#\(crafted.world.vault.tokens.count / 2)"))
        #expect(outcome.findings.first?.message == "logged at#1" && outcome.reason == "reason at#1")
        #expect(outcome.trace.eventCount == crafted.trace.events.count && outcome.trace.cutMessages == 0)
    }

    @Test("findings beyond the budget are counted per check, and still charge their requirements")
    func findingsBounded() throws {
        let crafted = CraftedTrace()
        let distinct = (0..<(CaseRetention.maximumFindings + 50)).map { index in
            // Letters, not digits: masked alike, these would be grouped.
            let name = String(UnicodeScalar(UInt8(65 + index % 26))) + String(UnicodeScalar(UInt8(65 + index / 26)))
            return Finding(requirements: index < CaseRetention.maximumFindings ? ["R1"] : ["R2"], check: "oracle:test",
                           message: "unknown transition '\(name)'" + String(repeating: "!", count: 2_000),
                           evidence: Array(1...500), step: 0)
        }
        let findings = Self.outcome(crafted, findings: distinct).findings
        #expect(findings.count == CaseRetention.maximumFindings + 1)
        let summary = try #require(findings.last)
        #expect(summary.requirements == ["R2"] && summary.occurrences == 50)
        #expect(summary.message.hasPrefix("and 50 more distinct findings of oracle:test in this case, not kept (a case keeps 100); "
                                          + "the first: unknown transition 'WD'"))
        #expect(findings.allSatisfy { $0.evidence.count <= CaseRetention.maximumFindingEvidence })
        #expect(findings.allSatisfy { $0.message.utf8.count <= 2 * CaseRetention.maximumTextBytes })
    }
}

extension TraceEvent.Kind {
    /// About the size of what the event holds, as written.
    var keptSize: Int {
        switch self {
        case .received(let message): message.approximateSize
        case .sent(let message): message.line.utf8.count
        default: 0
        }
    }
}
