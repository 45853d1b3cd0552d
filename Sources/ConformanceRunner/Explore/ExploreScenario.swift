import SimulatedWorld
import SpecModel
import SpecYAML

/// Run K of seed S: a generated case whose ID names both, so `run --seed S` on its file plays it exactly
/// (the world's seed of a case derives from the run seed and the case ID).
///
/// A guided exploration aims some runs at a situation its earlier runs reached least or at a requirement's path
/// (`focus`); the focus is part of the run's identity, `S:K@aim`, so a run replays alone, without the runs that chose it.
public struct ExploreRunID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let seed: UInt64
    /// 1-based.
    public let run: Int
    /// What the run's program aims at, or nil for an unaimed run.
    public let focus: ExploreAim?

    public init(seed: UInt64, run: Int, focus: ExploreAim? = nil) {
        self.seed = seed
        self.run = run
        self.focus = focus
    }

    /// Parses `S:K` or `S:K@aim`, for example `1:42`, `1:42@kill-during-refresh` or `1:42@retry-refused-again`.
    public init?(_ text: String) {
        let (main, focusText) = text.firstIndex(of: "@").map { (text[..<$0], Optional(text[text.index(after: $0)...])) } ?? (text[...], nil)
        let parts = main.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let seed = UInt64(parts[0]), let run = Int(parts[1]), run >= 1 else { return nil }
        var focus: ExploreAim?
        if let focusText {
            guard let aim = ExploreAim(String(focusText)) else { return nil }
            focus = aim
        }
        self.init(seed: seed, run: run, focus: focus)
    }

    public var description: String { "\(seed):\(run)" + (focus.map { "@\($0)" } ?? "") }
    public var caseID: String { "explore-seed-\(seed)-run-\(run)" }

    public static func < (lhs: ExploreRunID, rhs: ExploreRunID) -> Bool {
        (lhs.seed, lhs.run, lhs.focus?.description ?? "") < (rhs.seed, rhs.run, rhs.focus?.description ?? "")
    }

    /// The generated program of this run.
    public var steps: [CaseStep] {
        ScenarioGenerator.program(seed: SeededRandom.derive(seed, "explore run \(run)"), focus: focus)
    }

    /// Whether a program is about the client's own deadlines: only the generator's deadline scenarios (a refresh
    /// the world never answers) move the clock past a held request (`HeldClockRule`), so its run, and a case shrunk
    /// from it, says `timeouts: true`.
    public static func aboutTimeouts(_ steps: [CaseStep]) -> Bool {
        !HeldClockRule.analyze(steps, trigger: nil).violations.isEmpty
    }

    /// The run as a case, with `steps` (the generated program, or a shrunk one) and the requirements it names.
    /// `id` changes the world's seed with it: a shrunk case keeps the ID it was shrunk with.
    public func acceptanceCase(steps: [CaseStep]? = nil, id: String? = nil, title: String? = nil, file: String = "<explore>",
                               requirements: [String] = []) -> AcceptanceCase {
        let location = SourceLocation(file: file, line: 1, column: 1)
        let steps = steps ?? self.steps
        return AcceptanceCase(id: id ?? caseID, location: location, file: file,
                              title: title ?? "explore run \(run) of seed \(seed)",
                              requirements: requirements.map { Located($0, at: location) }, transitions: [],
                              capabilities: [], steps: steps, timeouts: Self.aboutTimeouts(steps))
    }
}

/// The part of the run space one explore job takes: runs 1...N, every `count`-th from `index`.
public struct ExploreShard: Sendable, Hashable {
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    public func contains(run: Int) -> Bool { (run - 1) % count == index - 1 }

    /// The runs of 1...total in this shard, in order.
    public func runs(upTo total: Int) -> StrideThrough<Int> { stride(from: index, through: total, by: count) }

    /// How many runs of 1...total this shard plays, without listing them (`--runs` may be in the billions).
    public func runCount(upTo total: Int) -> Int { total < index ? 0 : (total - index) / count + 1 }

    /// The run at `position` (0-based) of this shard's runs.
    public func run(at position: Int) -> Int { index + position * count }
}

/// A distinct failure: the oracle (or error) and the requirements it charges. Reported once, with its first run.
public struct ExploreFailureKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `oracle:single-refresh-in-flight`, or `error:hung` for a run the client did not finish.
    public let check: String
    public let requirements: [String]

    public init(check: String, requirements: [String]) {
        self.check = check
        self.requirements = requirements
    }

    public var description: String {
        requirements.isEmpty ? check : "\(requirements.joined(separator: ", ")) by \(check)"
    }

    /// The check as a lower-kebab word for a case ID: `oracle:single-refresh-in-flight` -> `single-refresh-in-flight`.
    public var slug: String {
        let name = check.hasPrefix("oracle:") ? String(check.dropFirst("oracle:".count)) : check
        let mapped = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        return String(mapped).split(separator: "-").joined(separator: "-")
    }

    public static func < (lhs: ExploreFailureKey, rhs: ExploreFailureKey) -> Bool {
        (lhs.check, lhs.requirements.joined(separator: ",")) < (rhs.check, rhs.requirements.joined(separator: ","))
    }

    /// The distinct failures one run's outcome shows: one per finding's check and requirements, or its error.
    public static func of(_ outcome: CaseOutcome) -> [ExploreFailureKey] {
        switch outcome.status {
        case .fail:
            var keys: [ExploreFailureKey] = []
            for finding in outcome.findings {
                let key = ExploreFailureKey(check: finding.check, requirements: finding.requirements)
                if !keys.contains(key) { keys.append(key) }
            }
            return keys
        case .error:
            let code = outcome.reason.map { String($0.prefix { $0 != ":" }) } ?? "unknown"
            return [ExploreFailureKey(check: "error:\(code)", requirements: [])]
        default:
            return []
        }
    }
}
