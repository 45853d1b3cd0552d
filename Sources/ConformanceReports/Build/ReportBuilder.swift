import ConformanceProtocol
import ConformanceRunner
import Foundation
import JSONCore
import SpecModel
import SimulatedWorld

/// What a report says besides the run's result: which suite and spec, when, how it was run, and which
/// failures were expected.
public struct ReportContext: Sendable {
    public var suiteVersion: String
    /// The spec folder the cases were loaded from: case files are reported relative to it.
    public var specRoot: String
    public var specDigest: SpecDigest
    public var bundle: SpecBundle
    /// How the suite was run, for the reproduce commands: `session-conformance run` and the options that
    /// choose the client (`--adapter`, `--connection`, `--spec-root`).
    public var command: String
    public var startedAt: Date
    public var finishedAt: Date
    public var shard: Shard?
    public var filters: [String]
    public var expectedFailures: ExpectedFailures?
    /// Whether an expected failure that now passes fails the gate.
    public var strictExpectedFailures: Bool
    /// The most trace events a case keeps in the report (0: all); see `CaseReport.trace`.
    public var traceLimit: Int

    public static let defaultTraceLimit = 1_000

    public init(suiteVersion: String, specRoot: String, specDigest: SpecDigest, bundle: SpecBundle, command: String,
                startedAt: Date, finishedAt: Date, shard: Shard? = nil, filters: [String] = [],
                expectedFailures: ExpectedFailures? = nil, strictExpectedFailures: Bool = true,
                traceLimit: Int = ReportContext.defaultTraceLimit) {
        self.suiteVersion = suiteVersion
        self.specRoot = specRoot
        self.specDigest = specDigest
        self.bundle = bundle
        self.command = command
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.shard = shard
        self.filters = filters
        self.expectedFailures = expectedFailures
        self.strictExpectedFailures = strictExpectedFailures
        self.traceLimit = traceLimit
    }
}

/// Turns a run's result into a report. Every text that came from the client (trace lines, finding
/// messages, reasons, stderr tails) goes through the case's token vault, so reports show handles only.
public enum ReportBuilder {
    public static func build(_ result: RunResult, context: ReportContext) -> ComplianceReport {
        let bundle = context.bundle
        let ordinals = Dictionary(bundle.playableCases.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let specCases = Dictionary(bundle.playableCases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let cases = result.outcomes.map { outcome in
            caseReport(outcome, spec: specCases[outcome.caseID], ordinal: ordinals[outcome.caseID] ?? Int.max,
                       context: context, runSeed: result.seed)
        }
        let requirements = (bundle.catalogue?.requirements ?? []).map { requirement in
            RequirementReport(id: requirement.id, level: requirement.level.rawValue, title: requirement.title,
                              statement: requirement.statement,
                              quotes: requirement.sources.map { QuoteReport(document: $0.document.value, quote: $0.text) },
                              capability: requirement.capability?.value,
                              transitions: requirement.transitions.map(\.value), invariants: requirement.invariants.map(\.value),
                              status: .untested, reason: nil, cases: [], evidence: [], expectedFailure: nil,
                              needs: requirement.evidence.map(\.rawValue))
        }
        let machine = bundle.stateMachine
        let stateMachine = StateMachineReport(
            initial: machine?.initial.value ?? "",
            states: (machine?.states ?? []).map { .init(id: $0.id, invariants: $0.invariants.map(\.id), status: .untested) },
            transitions: (machine?.transitions ?? []).map {
                .init(id: $0.id, from: $0.from.value, to: $0.to.value, event: $0.event, status: .untested)
            })
        let implementation = result.implementation.map {
            AdapterInfo.Implementation(name: $0.name, version: $0.version, language: $0.language, platform: $0.platform)
        }
        let expected = context.expectedFailures.map { file in
            ExpectedFailuresReport(file: file.file, strict: context.strictExpectedFailures, entries: file.entries.map {
                .init(id: $0.id, kind: $0.kind, reason: $0.reason, outcome: .notRun)
            })
        }
        var report = ComplianceReport(
            formatVersion: ComplianceReport.currentFormatVersion,
            suite: SuiteInfo(name: "session-conformance", version: context.suiteVersion),
            spec: SpecInfo(digest: context.specDigest.digest, files: context.specDigest.files,
                           capabilities: (bundle.catalogue?.capabilities ?? []).map {
                               CapabilityInfo(id: $0.id, description: $0.description)
                           }, version: bundle.specVersion?.description),
            adapter: AdapterInfo(description: WorkingDirectory.relativizing(result.adapter), implementation: implementation,
                                 capabilities: result.capabilities, offlineResources: result.offlineResources),
            run: RunInfo(seed: String(result.seed), startedAt: timestamp(context.startedAt),
                         finishedAt: timestamp(context.finishedAt), completed: result.startupFailure == nil && result.interruptedBy == nil,
                         startupFailure: result.startupFailure.map {
                             RunInfo.StartupFailure(message: $0.message, stderrTail: $0.stderrTail)
                         },
                         shard: context.shard, filters: context.filters, command: context.command,
                         world: result.world?.name),
            certification: [], summary: ReportSummary(requirements: [:], cases: [:], durationSeconds: 0),
            gate: Gate(passed: false, reasons: []),
            requirements: requirements, cases: cases, stateMachine: stateMachine, expectedFailures: expected)
        report.derive()
        return report
    }

    /// Evidence events per finding whose surroundings a long trace keeps (see `keptEvents`).
    static let evidenceKeptPerFinding = Finding.groupEvidenceLimit

    /// ISO 8601 in UTC with milliseconds.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func caseReport(_ outcome: CaseOutcome, spec: AcceptanceCase?, ordinal: Int, context: ReportContext,
                           runSeed: UInt64) -> CaseReport {
        let vault = outcome.vault
        let renderer = TraceRenderer(vault: vault)
        let stepKinds = spec?.steps.map(\.kind) ?? []
        func kind(_ step: Int) -> String { step >= 0 && step < stepKinds.count ? stepKinds[step] : "?" }
        // Around the first few events of each finding: a finding that lists 1,000 requests keeps the trace
        // near its first ones, not the whole trace.
        let evidence = Set(outcome.findings.flatMap { $0.evidence.prefix(Self.evidenceKeptPerFinding) })
        // By number over the whole trace: the outcome may keep fewer events than the trace had (`CaseRetention`).
        let kept = keptEvents(count: outcome.trace.eventCount, evidence: evidence, limit: context.traceLimit)
        let trace = outcome.trace.events.filter { kept($0.number - 1) }.map { event in
            traceLine(event, renderer: renderer, vault: vault)
        }
        let status: CaseReportStatus = switch outcome.status {
        case .pass: .pass
        case .fail: .fail
        case .skipped: .skipped
        case .error: .error
        case .inconclusive: .inconclusive
        }
        return CaseReport(
            id: outcome.caseID, title: outcome.title, file: relative(outcome.file, to: context.specRoot), ordinal: ordinal,
            requirements: outcome.requirements, capabilities: spec?.capabilities.map(\.value) ?? [],
            transitions: spec?.transitions.map(\.value) ?? [],
            status: status, reason: outcome.reason.map(vault.redact),
            stderrTail: outcome.stderrTail.flatMap { $0.isEmpty ? nil : vault.redact($0) },
            durationSeconds: (outcome.duration * 1000).rounded() / 1000,
            findings: outcome.findings.map { finding in
                FindingReport(requirements: finding.requirements, check: finding.check, message: vault.redact(finding.message),
                              step: finding.step + 1, stepKind: kind(finding.step), events: finding.evidence,
                              occurrences: finding.occurrences, unmet: finding.unmet.map(Self.unmet))
            },
            trace: trace, traceEvents: outcome.trace.eventCount, expectedFailure: nil,
            reproduce: "\(context.command) --case \(Self.caseArgument(outcome.caseID)) --seed \(runSeed)",
            trigger: outcome.trigger?.rawValue,
            reached: outcome.status == .pass || outcome.status == .fail ? outcome.reached.map(\.rawValue).sorted() : nil,
            wouldHaveChecked: outcome.wouldHaveChecked.isEmpty ? nil : outcome.wouldHaveChecked,
            definition: spec.map(CaseDefinitionDigest.of),
            unmet: outcome.unmet.map(Self.unmet),
            realTimeWaits: outcome.trace.realTimeWaits.isEmpty ? nil : outcome.trace.realTimeWaits.map {
                RealTimeWaitReport(step: $0.step + 1, afterEvent: $0.afterEvent, seconds: $0.seconds)
            })

    }

    static func unmet(_ unmet: UnmetPrecondition) -> UnmetPreconditionReport {
        UnmetPreconditionReport(kind: unmet.kind.rawValue, step: unmet.step, subject: unmet.subject, path: unmet.path,
                                endpoint: unmet.endpoint, expected: unmet.expected, observed: unmet.observed)
    }

    /// A case ID as a shell word: a variant's brackets (`base[expiry]`) are quoted so a shell does not glob them.
    static func caseArgument(_ id: String) -> String { id.contains("[") ? "'\(id)'" : id }

    /// Which events (by 0-based position) a case keeps: all within the limit; else the first and last half
    /// of the limit, and ten events either side of each piece of evidence (the first three of each finding).
    static func keptEvents(count: Int, evidence: Set<Int>, limit: Int) -> (Int) -> Bool {
        guard limit > 0, count > limit else { return { _ in true } }
        var kept = Set(0..<limit / 2).union((count - limit / 2)..<count)
        for number in evidence {
            kept.formUnion(max(0, number - 11)...min(count - 1, number + 9))
        }
        return { kept.contains($0) }
    }

    static func traceLine(_ event: TraceEvent, renderer: TraceRenderer, vault: TokenVault) -> TraceLine {
        let kind: TraceLine.Kind
        var type: String?
        let summary: String
        switch event.kind {
        case .stepStarted(let index, let stepKind):
            kind = .step
            summary = "step \(index + 1): \(stepKind)"
        case .processStarted(let instance):
            kind = .processStarted
            summary = "client instance \(instance) started"
        case .processKilled(let instance, let reason):
            kind = .processKilled
            summary = "client instance \(instance) killed: \(reason)"
        case .sent(let message):
            kind = .sent
            type = message.json["type"]?.string
            summary = MessageSummary.summary(message.json, redact: vault.redact)
        case .received(let message):
            kind = .received
            type = message.json["type"]?.string
            summary = MessageSummary.summary(message.json, redact: vault.redact)
        case .world(let text):
            kind = .world
            summary = text
        case .writeDiscarded(let id):
            kind = .world
            summary = "write \(id) discarded: the process died first"
        case .effectAbandoned(let id):
            kind = .world
            summary = "\(id) abandoned by the client"
        }
        return TraceLine(number: event.number, step: event.step + 1, instance: event.instance, time: event.time,
                         kind: kind, type: type, summary: vault.redact(summary), text: renderer.line(event))
    }

    /// A case file relative to the spec root, so reports do not depend on where the suite was checked out.
    static func relative(_ file: String, to specRoot: String) -> String {
        let root = URL(fileURLWithPath: specRoot).standardizedFileURL.path
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : file
    }
}

/// One-line labels of protocol messages, for sequence diagrams.
enum MessageSummary {
    /// `redact` is applied to free text before it is shortened, so no cut can leave part of a token behind.
    static func summary(_ json: JSONValue, redact: (String) -> String) -> String {
        let type = json["type"]?.string ?? "?"
        func field(_ name: String) -> String? { json[name]?.string }
        var parts = [type]
        switch type {
        case "command":
            parts += [field("id"), field("command"), field("resource") ?? field("email")].compactMap { $0 }
        case "reply":
            parts += [field("id")].compactMap { $0 }
            if let status = json["response"]?["status"]?.int {
                parts.append(String(status))
                if let error = json["response"]?["body"]?["error"]?.string { parts.append(error) }
            } else if let code = json["failure"]?["code"]?.string ?? json["error"]?["code"]?.string {
                parts.append(code)
            } else if let value = json["value"] {
                parts.append(value.isNull ? "(absent)" : "(value)")
            } else {
                parts.append("done")
            }
        case "http":
            parts += [field("id"), json["request"]?["method"]?.string, json["request"]?["path"]?.string].compactMap { $0 }
        case "storage", "preferences":
            parts += [field("id"), field("op"), field("key")].compactMap { $0 }
        case "sleep":
            parts += [field("id"), json["seconds"]?.double.map { "\($0)s" }].compactMap { $0 }
        case "result":
            parts += [field("id"), field("outcome"), json["error"]?["code"]?.string].compactMap { $0 }
        case "transition":
            let name = json["transition"]?.string ?? "enter"
            let from = json["from"]?.string ?? "-"
            parts += [name, "\(from) -> \(field("to") ?? "?")"]
        case "ui":
            parts += [field("event"), field("resource"), field("account")].compactMap { $0 }
        case "log":
            let message = redact(field("message") ?? "")
            parts += [(field("level") ?? "") + ":", message.count > 48 ? String(message.prefix(47)) + "..." : message]
        case "barrier":
            parts += [field("id")].compactMap { $0 }
        case "clock":
            parts += [json["monotonic"]?.double.map { "t=\($0)" }].compactMap { $0 }
        case "hello":
            parts += [json["implementation"]?["name"]?.string].compactMap { $0 }
        case "error":
            parts += [field("code")].compactMap { $0 }
        default:
            break
        }
        return parts.joined(separator: " ")
    }
}
