import ConformanceProtocol
import JSONCore
import SimulatedWorld

/// What a case keeps once it has ended, for the reports: its trace, findings and reason within a fixed budget, so a
/// run's memory grows by a bounded amount per case however much an adapter sent within ``TraceBudget``. The oracles
/// and expectations saw everything while the case ran; only what is kept afterwards is bounded.
///
/// - A trace of at most ``maximumEvents`` events and ``maximumTraceBytes`` of messages is kept whole. A longer one
///   keeps its first and last ``keptAtEachEnd`` events (what the reports' default `--trace-limit` of 1,000 shows) and
///   the events around each finding's first evidence, ten either side of its first three events (the reports' excerpt),
///   up to ``maximumEvidenceEvents`` more. Events keep their numbers, so a gap shows what was left out.
/// - A message over ``maximumMessageBytes`` (about as written) is cut: each string to ``maximumStringBytes`` with a
///   marker `…[cut: N bytes]`, and arrays and objects where the message's bytes run out, with a marker saying how many
///   items or members were left out. Token values are replaced by their handles before anything is cut, so no cut
///   leaves part of a token behind.
/// - At most ``maximumFindings`` distinct findings; the others are counted, per check and requirements, in one finding
///   that says so, so every requirement a finding charged is still charged. Each keeps at most
///   ``maximumFindingEvidence`` event numbers and ``maximumTextBytes`` of message, and so does the reason.
/// - A case whose world issued more than ``maximumTokens`` tokens keeps no token vault (its thousands of tokens would
///   cost more than the rest): every kept text has its token values replaced by their handles when it is kept, and the
///   outcome's vault is empty. A real case issues a handful.
public enum CaseRetention {
    public static let maximumEvents = 20_000
    /// Bytes of a kept trace's messages, about as written (see `JSONValue.approximateSize`).
    public static let maximumTraceBytes = 2 * 1024 * 1024
    public static let keptAtEachEnd = 500
    public static let maximumEvidenceEvents = 1_000
    public static let maximumMessageBytes = 1_024
    public static let maximumStringBytes = 256
    public static let maximumFindings = 100
    public static let maximumFindingEvidence = 100
    public static let maximumTextBytes = 1_024
    public static let maximumTokens = 64

    /// Whether a case keeps its texts redacted and no vault (see ``maximumTokens``).
    static func dropsVault(_ vault: TokenVault) -> Bool { vault.tokens.count > maximumTokens }

    /// Events either side of a piece of evidence that a cut-down trace keeps, and how many of a finding's first events.
    static let evidenceContext = 10
    static let evidencePerFinding = Finding.groupEvidenceLimit

    // MARK: Trace

    /// `trace` within the budget: whole, with oversized messages cut, when it fits; else its ends and the evidence.
    static func trace(_ trace: Trace, findings: [Finding], vault: TokenVault) -> Trace {
        // A trace kept once already is within the budget (and its events are no longer at their numbers' places).
        guard trace.eventCount == trace.events.count else { return trace }
        var cutter = TextCutter(vault: vault)
        let redacting = cutter.redactingAll
        var bytes = 0
        var kept: [TraceEvent] = []
        kept.reserveCapacity(min(trace.events.count, maximumEvents))
        var fits = trace.events.count <= maximumEvents
        if fits {
            for event in trace.events {
                let (cut, size) = cutter.event(event)
                bytes += size
                guard bytes <= maximumTraceBytes else { fits = false; break }
                kept.append(cut)
            }
        }
        if fits {
            let unchanged = kept.count == trace.events.count && cutter.cutEvents == 0 && !redacting
            return unchanged ? trace : trace.keeping(kept, cut: cutter.cutEvents)
        }
        let count = trace.events.count
        var numbers = Set(1...min(count, keptAtEachEnd)).union(max(1, count - keptAtEachEnd + 1)...count)
        var windows = 0
        for number in findings.flatMap({ $0.evidence.prefix(evidencePerFinding) }) {
            let low = max(1, number - evidenceContext), high = min(count, number + evidenceContext)
            guard low <= high else { continue }
            for neighbour in low...high where windows < maximumEvidenceEvents {
                if numbers.insert(neighbour).inserted { windows += 1 }
            }
        }
        cutter = TextCutter(vault: vault)
        kept = numbers.sorted().map { cutter.event(trace.events[$0 - 1]).event }
        return trace.keeping(kept, cut: cutter.cutEvents)
    }

    // MARK: Findings and reason

    /// At most `maximumFindings` findings (already grouped), each bounded; the rest counted per check and requirements.
    static func findings(_ findings: [Finding], vault: TokenVault) -> [Finding] {
        var cutter = TextCutter(vault: vault)
        func bounded(_ finding: Finding) -> Finding {
            Finding(requirements: finding.requirements, check: finding.check,
                    message: cutter.text(finding.message, limit: maximumTextBytes),
                    evidence: Array(finding.evidence.prefix(maximumFindingEvidence)), step: finding.step,
                    occurrences: finding.occurrences, unmet: finding.unmet)
        }
        guard findings.count > maximumFindings else {
            let needsCut = cutter.redactingAll
                || findings.contains { $0.evidence.count > maximumFindingEvidence || $0.message.utf8.count > maximumTextBytes }
            return needsCut ? findings.map { bounded($0) } : findings
        }
        var kept = findings.prefix(maximumFindings).map { bounded($0) }
        struct Kind: Hashable { let check: String; let requirements: [String] }
        var order: [Kind] = []
        var left: [Kind: (first: Finding, groups: Int, occurrences: Int)] = [:]
        for finding in findings.dropFirst(maximumFindings) {
            let kind = Kind(check: finding.check, requirements: finding.requirements)
            if let known = left[kind] {
                left[kind] = (known.first, known.groups + 1, known.occurrences + finding.occurrences)
            } else {
                order.append(kind)
                left[kind] = (finding, 1, finding.occurrences)
            }
        }
        for kind in order {
            let (first, groups, occurrences) = left[kind]!
            let words = "and \(groups) more distinct \(groups == 1 ? "finding" : "findings") of \(kind.check) in this case, "
                + "not kept (a case keeps \(maximumFindings)); the first: " + cutter.text(first.message, limit: maximumTextBytes)
            kept.append(Finding(requirements: first.requirements, check: first.check, message: words,
                                evidence: Array(first.evidence.prefix(evidencePerFinding)), step: first.step,
                                occurrences: occurrences, unmet: first.unmet))
        }
        return kept
    }

    /// A reason or other free text within `limit` bytes, tokens replaced by their handles first (and always, for a case
    /// that keeps no vault).
    static func text(_ text: String, vault: TokenVault, limit: Int = maximumTextBytes) -> String {
        var cutter = TextCutter(vault: vault)
        return cutter.text(text, limit: limit)
    }
}

extension Trace {
    /// The same trace holding only `kept` (in order, their numbers unchanged), of which `cut` messages were cut.
    fileprivate func keeping(_ kept: [TraceEvent], cut: Int) -> Trace {
        var copy = self
        copy.retain(kept, cutMessages: cut)
        return copy
    }
}

/// Cuts strings and messages for keeping: token values become handles before any cut, and a cut that would still show
/// a fragment of a token shows only its marker. For a case that keeps no vault, every text is redacted, cut or not.
struct TextCutter {
    let vault: TokenVault
    let redactingAll: Bool
    /// How many texts and messages were cut so far.
    private var cuts = 0
    /// How many events `event(_:)` cut.
    private(set) var cutEvents = 0

    init(vault: TokenVault) {
        self.vault = vault
        redactingAll = CaseRetention.dropsVault(vault)
    }

    /// `text` at most `limit` bytes (plus the marker): the start of its redacted form and `…[cut: N bytes]`.
    mutating func text(_ text: String, limit: Int) -> String {
        let size = text.utf8.count
        guard size > limit else { return redactingAll ? redacted(text) : text }
        cuts += 1
        // Redacting may shorten the text (a handle is shorter than its token), so a window somewhat longer than the limit
        // is redacted, then cut at a character boundary.
        let window = redacted(String(decoding: text.utf8.prefix(limit + 512), as: UTF8.self))
        let marker = "…[cut: \(size) bytes]"
        let result = String(decoding: window.utf8.prefix(limit), as: UTF8.self) + marker
        return vault.leaked(in: result).isEmpty ? result : marker
    }

    /// `text` with every token value replaced by its handle, and fragments and encoded forms as `TokenVault.redact` does:
    /// one pass over the text whatever the number of tokens (`redact` tries each token in turn), then `redact` itself only
    /// when something of a token is left.
    func redacted(_ text: String) -> String {
        var result = text
        if let length = vault.tokens.first?.value.utf8.count, text.contains("sat_") || text.contains("srt_") {
            let bytes = Array(text.utf8)
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                if index + length <= bytes.count, bytes[index] == UInt8(ascii: "s"), bytes[index + 3] == UInt8(ascii: "_"),
                   let token = vault.token(String(decoding: bytes[index..<index + length], as: UTF8.self)) {
                    output += token.handle.utf8
                    index += length
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
            result = String(decoding: output, as: UTF8.self)
        }
        return vault.leaked(in: result).isEmpty ? result : vault.redact(result)
    }

    /// The event, its message cut when it is over `maximumMessageBytes`; and its size, about as written.
    mutating func event(_ event: TraceEvent) -> (event: TraceEvent, size: Int) {
        let before = cuts
        defer { if cuts > before { cutEvents += 1 } }
        let limit = CaseRetention.maximumStringBytes
        switch event.kind {
        case .received(let message):
            return cutMessage(event, message.json, direction: "received") { json in (try? AdapterMessage(json: json)).map(TraceEvent.Kind.received) }
        case .sent(let message):
            return cutMessage(event, message.json, direction: "sent") { json in (try? RunnerMessage(json: json)).map(TraceEvent.Kind.sent) }
        case .world(let note):
            let kept = text(note, limit: limit)
            return (kept == note ? event : event.with(.world(kept)), kept.utf8.count + 16)
        case .processKilled(let instance, let reason):
            let kept = text(reason, limit: limit)
            return (kept == reason ? event : event.with(.processKilled(instance: instance, reason: kept)), kept.utf8.count + 16)
        case .writeDiscarded(let id):
            let kept = text(id, limit: limit)
            return (kept == id ? event : event.with(.writeDiscarded(effectID: kept)), kept.utf8.count + 16)
        case .effectAbandoned(let id):
            let kept = text(id, limit: limit)
            return (kept == id ? event : event.with(.effectAbandoned(effectID: kept)), kept.utf8.count + 16)
        case .stepStarted, .processStarted:
            return (event, 16)
        }
    }
}

extension TextCutter {
    /// The event of a message whose JSON is `json`, cut when it is over `maximumMessageBytes`; `decode` makes the kept
    /// kind of the cut JSON (nil when it no longer decodes: the event then only says what was not kept).
    private mutating func cutMessage(_ event: TraceEvent, _ json: JSONValue, direction: String,
                                     decode: (JSONValue) -> TraceEvent.Kind?) -> (event: TraceEvent, size: Int) {
        let size = json.approximateSize
        let over = size > CaseRetention.maximumMessageBytes
        guard over || redactingAll else { return (event, size) }
        var cut = JSONCut(cutter: self, budget: over ? CaseRetention.maximumMessageBytes : .max)
        let smaller = cut.value(json)
        self = cut.cutter
        if over { cuts += 1 }
        if let kind = decode(smaller) { return (event.with(kind), smaller.approximateSize) }
        let type = text(json["type"]?.string ?? "?", limit: 32)
        return (event.with(.world("\(direction) a '\(type)' message of \(size) bytes, too large to keep")), 64)
    }
}

/// A JSON value cut to about `CaseRetention.maximumMessageBytes`. Within each object the scalar members come first, then
/// the containers, each the smallest first, so the fields a message needs (`type`, `id`, `method`, `path`) are kept
/// before bulk; every string keeps at least its first bytes, so a cut message still decodes.
private struct JSONCut {
    var cutter: TextCutter
    private var budget: Int
    /// False: the message is within its bytes and only redacted.
    private let cutting: Bool
    /// Every string keeps at least this many bytes, past the budget too: enough for any protocol keyword.
    private static let leastString = 32
    /// The first scalar members of an object are kept past the budget too (a message's own fields are a few).
    private static let scalarsPastBudget = 16

    /// `budget`: `.max` only redacts (a message within its bytes, of a case that keeps no vault).
    init(cutter: TextCutter, budget: Int) {
        self.cutter = cutter
        self.budget = budget
        cutting = budget != .max
    }

    mutating func value(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null, .bool, .int, .double:
            budget -= 8
            return value
        case .string(let text):
            return .string(string(text))
        case .array(let items):
            budget -= 2
            var kept: [JSONValue] = []
            for (index, item) in items.enumerated() {
                guard budget > 0 else {
                    kept.append(.string("…[cut: \(items.count - index) more items]"))
                    break
                }
                kept.append(self.value(item))
                budget -= 1
            }
            return .array(kept)
        case .object(let members):
            budget -= 2
            let ordered = members.map { (key: $0.key, value: $0.value, size: $0.key.utf8.count + $0.value.approximateSize) }
                .sorted { ($0.value.isContainer ? 1 : 0, $0.size, $0.key) < ($1.value.isContainer ? 1 : 0, $1.size, $1.key) }
            var kept: [String: JSONValue] = [:]
            for (index, member) in ordered.enumerated() {
                guard budget > 0 || (!member.value.isContainer && index < Self.scalarsPastBudget) else {
                    kept["…"] = .string("[cut: \(ordered.count - index) more members]")
                    break
                }
                budget -= 4
                kept[string(member.key)] = self.value(member.value)
            }
            return .object(kept)
        }
    }

    private mutating func string(_ text: String) -> String {
        let limit = cutting ? max(Self.leastString, min(CaseRetention.maximumStringBytes, budget)) : .max
        let kept = cutter.text(text, limit: limit)
        budget -= kept.utf8.count + 2
        return kept
    }
}

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}

extension TraceEvent {
    fileprivate func with(_ kind: Kind) -> TraceEvent {
        TraceEvent(number: number, step: step, instance: instance, time: time, kind: kind)
    }
}
