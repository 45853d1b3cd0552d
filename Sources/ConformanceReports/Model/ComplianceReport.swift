/// Everything a compliance report says, in every format: what was certified against what, each requirement's
/// status with its evidence, each case with its trace (tokens as handles), and the certification verdicts.
///
/// Its JSON form (`docs/report.schema.json`) is the interchange format: `diff` and `merge` read it back.
/// The sections after `cases` (requirements' statuses and evidence, the state machine's colours, the
/// certification, the summary, the gate) are derived from the cases by `derive()`, so a merged report is
/// computed exactly like an unsharded one.
public struct ComplianceReport: Sendable, Equatable, Codable {
    /// 2: case status `inconclusive`, requirement `quotes`, finding and evidence `occurrences`.
    public static let currentFormatVersion = 2

    public var formatVersion: Int
    public var suite: SuiteInfo
    public var spec: SpecInfo
    public var adapter: AdapterInfo
    public var run: RunInfo
    public var certification: [ProfileVerdict]
    public var summary: ReportSummary
    public var gate: Gate
    public var requirements: [RequirementReport]
    public var cases: [CaseReport]
    public var stateMachine: StateMachineReport
    public var expectedFailures: ExpectedFailuresReport?
    /// The findings and the cases that could not run, grouped by what to fix, fix-first (`RootCauseAnalysis`);
    /// derived. Absent in a report written before root causes (read back, `derive()` fills it in).
    public var rootCauses: [RootCause]? = nil

    /// Whether this report covers only part of the suite (a shard, `--case`/`--filter`, or an exploration):
    /// requirements it does not cover are `untested` here without that being a failure, and it certifies nothing.
    public var isPartial: Bool { run.shard != nil || !run.filters.isEmpty || run.exploration != nil }

    public func requirement(_ id: String) -> RequirementReport? { requirements.first { $0.id == id } }
    public func testCase(_ id: String) -> CaseReport? { cases.first { $0.id == id } }

    /// The cases an ID names: the case itself, or, for the ID of a case as written, each of its trigger variants.
    public func testCases(named id: String) -> [CaseReport] { cases.filter { $0.id == id || $0.baseID == id } }
}

public struct SuiteInfo: Sendable, Equatable, Codable {
    public var name: String
    public var version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

public struct SpecInfo: Sendable, Equatable, Codable {
    /// `sha256:` and 64 hex digits: see `SpecDigest`.
    public var digest: String
    public var files: [SpecDigest.File]
    /// The optional capabilities the spec defines; each is a certification profile with core.
    public var capabilities: [CapabilityInfo]
    /// The contract's version (`specVersion` in requirements.yaml, `MAJOR.MINOR`); nil in a report written
    /// before specs had versions, which `diff` reads as an unknown version.
    public var version: String? = nil

    /// The version as the reports print it.
    public var versionText: String { version ?? "unknown" }
}

public struct CapabilityInfo: Sendable, Equatable, Codable {
    public var id: String
    public var description: String
}

public struct AdapterInfo: Sendable, Equatable, Codable {
    /// How the client was run: the adapter's command line, or the built-in reference's connection.
    public var description: String
    /// From the handshake; absent when the adapter could not be started.
    public var implementation: Implementation?
    public var capabilities: [String]
    /// The declared offline policy: resources whose cached content may show before validation.
    public var offlineResources: [String]

    public struct Implementation: Sendable, Equatable, Codable {
        public var name: String
        public var version: String
        public var language: String
        public var platform: String
    }
}

public struct RunInfo: Sendable, Equatable, Codable {
    /// The world's seed, as a decimal string so all 64 bits survive JSON.
    public var seed: String
    /// Wall-clock times, ISO 8601 UTC; reporting only.
    public var startedAt: String
    public var finishedAt: String
    /// Whether every selected case ran to an outcome (false when the adapter could not be started).
    public var completed: Bool
    public var startupFailure: StartupFailure?
    public var shard: Shard?
    /// `--case` and `--filter` patterns; empty for the whole suite.
    public var filters: [String]
    /// The command that ran the suite; each case's `reproduce` adds `--case ID --seed N` to it.
    public var command: String
    /// The name of the world profile the cases ran under (`json-v1`, `rfc6749`, or a team's own); nil when
    /// no case ran.
    public var world: String?
    /// Set in the report of `explore`: it certifies nothing, and its gate fails on any failure it found
    /// (`explorationVerdict`). Absent for a run of the acceptance cases.
    public var exploration: Exploration? = nil

    public struct Exploration: Sendable, Equatable, Codable {
        /// The generated runs played (over every shard, once merged).
        public var runs: Int

        public init(runs: Int) { self.runs = runs }
    }

    public struct StartupFailure: Sendable, Equatable, Codable {
        public var message: String
        public var stderrTail: String
    }
}

/// The certification verdict for one profile: core, or core plus one optional capability.
public struct ProfileVerdict: Sendable, Equatable, Codable {
    public enum Verdict: String, Sendable, Equatable, Codable {
        /// Every MUST requirement of the profile passed and no case covering it errored.
        case certified
        case notCertified
        /// The adapter does not declare the profile's capability.
        case notClaimed
        /// A shard or a filtered run: merge the shards, or run the whole suite, for a verdict.
        case incomplete
    }

    /// `core`, or `core+<capability>`.
    public var profile: String
    public var capabilities: [String]
    public var verdict: Verdict
    public var reason: String
    /// MUST requirements of the profile, and how many passed.
    public var mustTotal: Int
    public var mustPassed: Int
    /// What stands in the way: requirement IDs and errored case IDs, each with why.
    public var blocking: [Blocker]
    /// SHOULD and MAY requirements of the profile that failed (`warn`, or `known`).
    public var warnings: [String]

    public struct Blocker: Sendable, Equatable, Codable {
        public var id: String
        public var why: String
    }
}

public struct ReportSummary: Sendable, Equatable, Codable {
    /// Status to count; every status is present.
    public var requirements: [String: Int]
    public var cases: [String: Int]
    /// Sum of the cases' wall-clock durations.
    public var durationSeconds: Double
}

/// What the exit code of `run` or `merge` follows.
public struct Gate: Sendable, Equatable, Codable {
    public var passed: Bool
    public var reasons: [String]
}

public struct RequirementReport: Sendable, Equatable, Codable {
    public var id: String
    /// `MUST`, `SHOULD`, `MAY`, `informative` or `server`.
    public var level: String
    public var title: String
    public var statement: String
    /// The design's own words: the verbatim passages the requirement comes from, each with its document.
    public var quotes: [QuoteReport]
    public var capability: String?
    /// The transitions and invariants of the state machine it cites.
    public var transitions: [String]
    public var invariants: [String]
    public var status: RequirementReportStatus
    public var reason: String?
    /// The cases that name it, with their status.
    public var cases: [CaseReference]
    /// For a failure: every finding charged to it.
    public var evidence: [Evidence]
    /// The reason from the expected-failures file, when it is expected to fail.
    public var expectedFailure: String?
    /// The situations a conclusive case must reach before it can pass (`evidence:` in requirements.yaml).
    public var needs: [String]? = nil

    public var isTestable: Bool { ["MUST", "SHOULD", "MAY"].contains(level) }
}

/// A verbatim passage of a design document, as the catalogue quotes it.
public struct QuoteReport: Sendable, Equatable, Codable {
    /// The document's file name in `Specs/sources/`, for example `001_11ef74d1a00d33c4.txt`.
    public var document: String
    public var quote: String

    public init(document: String, quote: String) {
        self.document = document
        self.quote = quote
    }
}

public struct CaseReference: Sendable, Equatable, Codable {
    public var id: String
    public var status: CaseReportStatus
}

/// One finding charged to a requirement, with what is needed to see and reproduce it.
public struct Evidence: Sendable, Equatable, Codable {
    public var caseID: String
    /// 1-based step of the case, and its kind.
    public var step: Int
    public var stepKind: String
    /// The oracle or expectation that found it, for example `oracle:single-refresh-in-flight` or `expect`.
    public var check: String
    /// Expected versus observed, in words: the first occurrence's, verbatim.
    public var message: String
    /// How many identical findings this one stands for (see `Finding.grouped`).
    public var occurrences: Int
    /// Trace event numbers (of the first occurrences, for a group).
    public var events: [Int]
    /// The trace around those events; `=>` marks them.
    public var excerpt: [String]
    public var reproduce: String
}

public struct CaseReport: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    /// Relative to the spec root, for example `cases/refresh.yaml`.
    public var file: String
    /// Position in the spec's list of cases; orders merged shards like an unsharded run.
    public var ordinal: Int
    public var requirements: [String]
    public var capabilities: [String]
    public var transitions: [String]
    public var status: CaseReportStatus
    /// Why it was skipped or errored.
    public var reason: String?
    /// The adapter's stderr tail, when it errored (token values replaced by handles).
    public var stderrTail: String?
    /// Wall-clock seconds; reporting only.
    public var durationSeconds: Double
    public var findings: [FindingReport]
    /// The trace, whole when it has at most the trace limit's events (`--trace-limit`, default 1,000); a
    /// longer one keeps its beginning and end and every event near the evidence. Numbers stay those of the
    /// whole trace. Never more than the runner kept of the case (`CaseRetention`).
    public var trace: [TraceLine]
    /// How many events the whole trace has.
    public var traceEvents: Int
    public var expectedFailure: String?
    public var reproduce: String
    /// The refresh trigger a variant was played under (`unauthorized`, `expiry`, `background`).
    public var trigger: String? = nil
    /// The situations its trace reached (conclusive cases only).
    public var reached: [String]? = nil
    /// For an inconclusive case: what its remaining `expect` steps would have checked.
    public var wouldHaveChecked: [String]? = nil
    /// `sha256:` of what the case plays and checks (`CaseDefinitionDigest`): equal in two reports, the case
    /// is the same, so a different status is the client's. Nil in reports written before it was recorded.
    public var definition: String? = nil
    /// For an inconclusive case, or a trigger variant skipped because its trigger started no refresh: what it
    /// needed and did not get, as data.
    public var unmet: UnmetPreconditionReport? = nil

    /// The ID as written in the spec: a trigger variant's (`base[expiry]`) without its trigger.
    public var baseID: String { id.firstIndex(of: "[").map { String(id[..<$0]) } ?? id }
    /// Where the adapter let real time pass in silence while the world waited (a real sleep, a socket timeout):
    /// a diagnostic measured on the machine's clock, which decides no verdict. Absent when there was none.
    public var realTimeWaits: [RealTimeWaitReport]? = nil
}

/// The adapter sent nothing for `seconds` of real time after trace event `afterEvent`, while the world's virtual
/// clock stood still (`RealTimeWait`).
public struct RealTimeWaitReport: Sendable, Equatable, Codable {
    /// 1-based case step.
    public var step: Int
    public var afterEvent: Int
    public var seconds: Double

    public init(step: Int, afterEvent: Int, seconds: Double) {
        self.step = step
        self.afterEvent = afterEvent
        self.seconds = seconds
    }

    /// What to do about it, in every report format.
    public static let advice = "a real sleep or a library's socket timeout the world cannot see: route the wait through "
        + "the `sleep` effect (the virtual clock), and map a library timeout to `abandon` "
        + "(docs/porting-guide.md, Real-time waits)"

    public var sentence: String {
        "step \(step): the adapter sent nothing for \(seconds) s of real time after #\(afterEvent)"
    }
}

/// What a case that could not run needed (the runner's `UnmetPrecondition`): `kind` is `requests`, `state`,
/// `results`, `other`, `killPoint`, `refreshTrigger` or `abandoned`.
public struct UnmetPreconditionReport: Sendable, Equatable, Codable {
    public var kind: String
    /// 1-based case step.
    public var step: Int
    public var subject: String?
    public var path: String?
    /// The endpoint a `requests` path names: `refresh`, `login`, `revoke`, `profile` or `resource`.
    public var endpoint: String?
    public var expected: String?
    public var observed: String?

    public init(kind: String, step: Int, subject: String? = nil, path: String? = nil, endpoint: String? = nil,
                expected: String? = nil, observed: String? = nil) {
        self.kind = kind
        self.step = step
        self.subject = subject
        self.path = path
        self.endpoint = endpoint
        self.expected = expected
        self.observed = observed
    }
}

public struct FindingReport: Sendable, Equatable, Codable {
    public var requirements: [String]
    public var check: String
    public var message: String
    /// 1-based.
    public var step: Int
    public var stepKind: String
    public var events: [Int]
    /// How many identical findings this one stands for: the report keeps the count, not the copies.
    public var occurrences: Int
    /// For an `expect` step's finding: what the step needed and did not get, as data.
    public var unmet: UnmetPreconditionReport? = nil

    public init(requirements: [String], check: String, message: String, step: Int, stepKind: String, events: [Int],
                occurrences: Int = 1, unmet: UnmetPreconditionReport? = nil) {
        self.requirements = requirements
        self.check = check
        self.message = message
        self.step = step
        self.stepKind = stepKind
        self.events = events
        self.occurrences = occurrences
        self.unmet = unmet
    }
}

/// One event of a case's trace, rendered with every token value replaced by its handle (`at#2`).
public struct TraceLine: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable {
        case step, processStarted, processKilled, sent, received, world
    }

    public var number: Int
    /// 1-based case step.
    public var step: Int
    /// The client process instance (1 for the first launch).
    public var instance: Int
    /// The device's monotonic clock, in seconds.
    public var time: Double
    public var kind: Kind
    /// The message type, for `sent` and `received`: `command`, `reply`, `http`, `transition`, ...
    public var type: String?
    /// A short label for diagrams, for example `http e3 GET /resources/inbox`.
    public var summary: String
    /// The full line, as the text summary prints it.
    public var text: String
}

public struct StateMachineReport: Sendable, Equatable, Codable {
    public var initial: String
    public var states: [State]
    public var transitions: [Transition]

    public struct State: Sendable, Equatable, Codable {
        public var id: String
        public var invariants: [String]
        /// The worst status of the requirements citing its invariants.
        public var status: RequirementReportStatus
    }

    public struct Transition: Sendable, Equatable, Codable {
        public var id: String
        public var from: String
        public var to: String
        public var event: String
        /// The worst status of the requirements citing it and the cases that exercise it.
        public var status: RequirementReportStatus
    }
}

public struct ExpectedFailuresReport: Sendable, Equatable, Codable {
    /// The file, as given on the command line.
    public var file: String
    /// Whether an expected failure that now passes fails the gate (not with `--allow-unexpected-passes`).
    public var strict: Bool
    public var entries: [Entry]

    public struct Entry: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Equatable, Codable { case requirement, `case` }
        public enum Outcome: String, Sendable, Equatable, Codable {
            /// It failed, as expected: reported `known`.
            case known
            /// It passed: the entry is stale.
            case unexpectedPass
            /// A requirement that passed in this shard; only the merged report can tell.
            case pending
            /// Not run here: filtered out, in another shard, skipped or not covered.
            case notRun
            /// A case covering it errored: an error is never an expected failure.
            case errored
        }

        public var id: String
        public var kind: Kind
        public var reason: String
        public var outcome: Outcome
    }

    public var unexpectedPasses: [Entry] { entries.filter { $0.outcome == .unexpectedPass } }
}
