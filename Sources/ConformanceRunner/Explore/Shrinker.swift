import SpecModel

/// Reduces a failing run to a short program that still fails the same way (the same oracle charging the same
/// requirements): delta debugging (ddmin) over the steps, then simpler forms of the steps that remain (the
/// canonical schedule, no delays, one request, one fault), then ddmin again.
public struct Shrinker: Sendable {
    public let explorer: Explorer
    /// Plays at most this many candidates; what is smallest by then is the result.
    public var budget = 2_000
    /// Asked before each candidate after the first: true stops the search with the smallest failing case so far
    /// (a time budget that ran out).
    public var shouldStop: @Sendable () -> Bool = { false }

    public init(explorer: Explorer) {
        self.explorer = explorer
    }

    /// The shrunk steps of `run` played as case `id`, which fails `key` with `steps`, how many candidates were
    /// played, and whether the search ran to its end (false: the candidate budget or `shouldStop` cut it short,
    /// and a smaller case may exist); nil when `steps` as case `id` does not fail `key` to begin with.
    public func shrink(_ run: ExploreRunID, id: String, steps: [CaseStep], failing key: ExploreFailureKey)
        -> (steps: [CaseStep], plays: Int, minimal: Bool)?
    {
        var plays = 0
        var cut = false
        func fails(_ candidate: [CaseStep]) -> Bool {
            guard plays < budget, plays == 0 || !shouldStop() else {
                cut = true
                return false
            }
            plays += 1
            let outcome = explorer.play(run.acceptanceCase(steps: candidate, id: id), seed: run.seed)
            return ExploreFailureKey.of(outcome).contains(key)
        }
        guard fails(steps) else { return nil }
        var current = ddmin(steps, fails)
        var changed = true
        while changed {
            changed = false
            for index in current.indices {
                for simpler in Self.simplerForms(of: current[index]) {
                    var candidate = current
                    candidate[index] = simpler
                    if fails(candidate) {
                        current = candidate
                        changed = true
                        break
                    }
                }
            }
            if changed { current = ddmin(current, fails) }
        }
        return (current, plays, !cut)
    }

    /// Zeller's ddmin: a 1-minimal subsequence of `steps` that still `fails`.
    func ddmin(_ steps: [CaseStep], _ fails: ([CaseStep]) -> Bool) -> [CaseStep] {
        var current = steps
        var granularity = 2
        while current.count >= 2 {
            let chunks = Self.split(current.count, into: granularity)
            var reduced = false
            // Try each chunk alone, then each complement.
            for chunk in chunks where chunk.count < current.count {
                let subset = Array(current[chunk])
                if fails(subset) {
                    current = subset
                    granularity = 2
                    reduced = true
                    break
                }
            }
            if !reduced {
                for chunk in chunks {
                    let complement = Array(current[..<chunk.lowerBound] + current[chunk.upperBound...])
                    if !complement.isEmpty, fails(complement) {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                guard granularity < current.count else { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        return current
    }

    static func split(_ count: Int, into parts: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for part in 0..<parts {
            let end = count * (part + 1) / parts
            if end > start { ranges.append(start..<end) }
            start = end
        }
        return ranges
    }

    /// Simpler versions of one step, simplest first: fewer concurrent requests, one fault, no schedule delays.
    static func simplerForms(of step: CaseStep) -> [CaseStep] {
        switch step.action {
        case .request(let resource, let count) where count > 1:
            return [CaseStep.building("request", [("resource", resource), ("count", "1")]),
                    count > 2 ? CaseStep.building("request", [("resource", resource), ("count", "2")]) : nil].compactMap { $0 }
        case .fault(let path, let kind, let times) where times > 1:
            return [CaseStep.building("fault", [("path", path), ("kind", kind.rawValue), ("times", "1")])].compactMap { $0 }
        case .schedule(let settings) where settings.delayPercent > 0:
            return [CaseStep.building("schedule", [("seed", String(settings.seed)), ("delay", "0")])].compactMap { $0 }
        case .advance(let seconds) where seconds > 1:
            return [CaseStep.building("advance", [("seconds", String(Int(seconds / 2)))])].compactMap { $0 }
        default:
            return []
        }
    }
}
