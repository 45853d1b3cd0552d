import ConformanceReports
import ConformanceRunner
import Dispatch
import Foundation
import SpecModel
import POSIXSync

/// A distinct failure shrunk to a case file.
struct ShrunkFailure: Sendable {
    let key: ExploreFailureKey
    let run: ExploreRunID
    let acceptanceCase: AcceptanceCase
    let originalCount: Int
    /// False when the time budget stopped shrinking: the smallest failing case found by then.
    let minimal: Bool
    /// The shrunk case played again: what the report shows for this failure.
    let outcome: CaseOutcome
    let path: String
}

/// Shrinks every distinct failure of an exploration and writes each as a case in a spec folder that `run`
/// (or `mutants`, for a variant) plays: `cases/<id>.yaml` beside copies of the spec's requirements, state
/// machine, sources and worlds, with the world the runs played when `--world` named a file of its own.
struct ExploreShrinking {
    let explorer: Explorer
    let settings: ExploreCommand.Settings
    let bundle: SpecBundle
    /// True once the time budget is spent: no failure starts shrinking, and one being shrunk stops where it is.
    var outOfTime: @Sendable () -> Bool = { false }

    /// What shrinking did: the failures it shrank, and those it never started because the time budget ran out.
    struct Outcome {
        var shrunk: [ShrunkFailure] = []
        var notStarted: [ExploreFailure] = []

        func shrunk(_ failure: ExploreFailure) -> ShrunkFailure? {
            shrunk.first { $0.key == failure.key && $0.run == failure.run }
        }

        func ranOutOfTime(_ failure: ExploreFailure) -> Bool {
            notStarted.contains { $0.key == failure.key && $0.run == failure.run }
        }
    }

    func shrinkAll(_ result: ExploreResult, console: any Console) -> Outcome {
        guard !result.failures.isEmpty else { return Outcome() }
        do {
            try prepareFolder()
        } catch {
            let reason = (error as? ReportFile.Error)?.reason ?? (error as NSError).localizedDescription
            console.err("explore: cannot write the shrunk cases to \(settings.shrinkDir): \(reason)\n")
            return Outcome()
        }
        console.err("explore: shrinking \(result.failures.count) distinct failure\(result.failures.count == 1 ? "" : "s") into "
                    + "\(WorkingDirectory.relative(settings.shrinkDir))/ (a spec folder; --shrink-dir DIR chooses another, --no-shrink none)\n")
        // IDs first, in failure order, so the files do not depend on which worker finished first.
        var used: Set<String> = []
        let plans = result.failures.map { failure -> (ExploreFailure, String) in
            var id = "\(failure.run.caseID)-\(failure.key.slug)"
            var suffix = 2
            while used.contains(id) {
                id = "\(failure.run.caseID)-\(failure.key.slug)-\(suffix)"
                suffix += 1
            }
            used.insert(id)
            return (failure, id)
        }
        let done = Locked<[Int: ShrunkFailure]>([:])
        let skipped = Locked<Set<Int>>([])
        let next = Locked(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(settings.options.jobs, plans.count))) { _ in
            while true {
                let position = next.takeNext()
                guard position < plans.count else { return }
                let (failure, id) = plans[position]
                guard !outOfTime() else {
                    skipped.withLock { _ = $0.insert(position) }
                    console.err("explore: \(failure.key) (run \(failure.run)) not shrunk: the time budget ran out; its replay command plays it\n")
                    continue
                }
                do {
                    if let shrunk = try shrink(failure, id: id) {
                        done.withLock { $0[position] = shrunk }
                        console.err("explore: shrank \(failure.key) (run \(failure.run)) from \(shrunk.originalCount) to "
                                    + "\(Plural.count(shrunk.acceptanceCase.steps.count, "step"))\(shrunk.minimal ? "" : " (not minimal: the time budget ran out)"): "
                                    + "\(WorkingDirectory.relative(shrunk.path))\n")
                    } else {
                        console.err("explore: \(failure.key) (run \(failure.run)) did not fail again as case \(id); not shrunk\n")
                    }
                } catch {
                    console.err(ConsoleText.lines("explore: \(failure.key) (run \(failure.run)) shrunk, but its case file was not written: \(error)") + "\n")
                }
            }
        }
        let shrunk = done.withLock { all in plans.indices.compactMap { all[$0] } }
        let notStarted = skipped.withLock { all in plans.indices.filter(all.contains).map { plans[$0].0 } }
        return Outcome(shrunk: shrunk, notStarted: notStarted)
    }

    /// The failure shrunk and written as a case file; nil when it did not fail again as a case.
    private func shrink(_ failure: ExploreFailure, id: String) throws(ReportFile.Error) -> ShrunkFailure? {
        let steps = failure.run.steps
        var shrinker = Shrinker(explorer: explorer)
        shrinker.shouldStop = outOfTime
        guard let (shrunk, _, minimal) = shrinker.shrink(failure.run, id: id, steps: steps, failing: failure.key) else { return nil }
        let path = (settings.shrinkDir as NSString).appendingPathComponent("cases/\(id).yaml")
        let text = ShrunkCase.render(run: failure.run, id: id, key: failure.key, steps: shrunk, originalCount: steps.count,
                                     minimal: minimal, replay: settings.replayCommand(failure.run),
                                     reproduce: settings.reproduceCommand(caseID: id))
        // The folder may hold links planted by anyone: a link at the case's path is replaced, never written through.
        try ReportFile.writeReplacingLinks(text, to: path)
        let acceptanceCase = failure.run.acceptanceCase(steps: shrunk, id: id, title: ShrunkCase.title(failure.key),
                                                        file: WorkingDirectory.relative(path),
                                                        requirements: failure.key.requirements)
        let outcome = explorer.play(acceptanceCase, seed: failure.run.seed)
        return ShrunkFailure(key: failure.key, run: failure.run, acceptanceCase: acceptanceCase, originalCount: steps.count,
                             minimal: minimal, outcome: outcome, path: path)
    }

    /// The spec folder: the cases go in `cases/`; the rest of the spec is copied so `run --spec-root` finds it.
    private func prepareFolder() throws {
        let manager = FileManager.default
        let folder = settings.shrinkDir as NSString
        try manager.createDirectory(atPath: folder.appendingPathComponent("cases"), withIntermediateDirectories: true)
        for name in ["requirements.yaml", "state-machine.yaml", "sources", "worlds"] {
            let source = (settings.specRoot as NSString).appendingPathComponent(name)
            let target = folder.appendingPathComponent(name)
            if manager.fileExists(atPath: target) { try manager.removeItem(atPath: target) }
            guard manager.fileExists(atPath: source) else { continue }
            try manager.copyItem(atPath: source, toPath: target)
        }
        guard let file = settings.worldFile, let name = settings.worldName else { return }
        // A world of its own replaces the spec's profile of the same name, so the folder holds one profile per name.
        let worlds = folder.appendingPathComponent("worlds") as NSString
        try manager.createDirectory(atPath: worlds as String, withIntermediateDirectories: true)
        for shadowed in bundle.worldFiles where shadowed.profile.name == name {
            let copied = worlds.appendingPathComponent((shadowed.file as NSString).lastPathComponent)
            if manager.fileExists(atPath: copied) { try manager.removeItem(atPath: copied) }
        }
        let target = worlds.appendingPathComponent((file as NSString).lastPathComponent)
        if manager.fileExists(atPath: target) { try manager.removeItem(atPath: target) }
        try manager.copyItem(atPath: file, toPath: target)
    }
}

/// Progress on stderr: each new distinct failure at once with its replay command, and a count of runs (a live
/// line on a terminal; a line every twentieth of the runs otherwise).
struct ExploreProgress: Sendable {
    let console: any Console
    let total: Int
    let replay: @Sendable (ExploreRunID) -> String

    func ran(_ done: Int, _ run: ExploreRunID, _ new: [ExploreFailureKey]) {
        for key in new {
            if console.isTerminal { console.err("\r\u{1B}[K") }
            console.err("explore: new failure in run \(run.run): \(key)\n  replay: \(replay(run))\n")
        }
        if console.isTerminal {
            if done % 100 == 0 || done == total { console.err("\r\u{1B}[K[\(done)/\(total)] runs") }
        } else if done % max(1, total / 20) == 0 || done == total {
            console.err("[\(done)/\(total)] runs\n")
        }
    }

    func finish(_ result: ExploreResult) {
        if console.isTerminal { console.err("\r\u{1B}[K") }
        console.err("explore: \(Plural.count(result.runsDone, "run")): \(result.passed) passed, \(result.failed) failed, "
                    + "\(result.inconclusive) inconclusive, \(result.errored) errored; \(result.failures.count) distinct failures\n")
        if result.killsEndForkedInstances, result.processDeaths > 0 {
            console.err("explore: kills: \(result.processDeaths), each ending the client instance's process (the adapter forks one "
                        + "per instance: 'fork')\n")
        } else if result.resetKills > 0 {
            console.err("explore: kills: \(result.processDeaths) ended the adapter's process, \(result.resetKills) reset it "
                        + "(every kill ends it in one run of \(result.options.processDeathEvery); --real-kills for all)\n")
        }
        if let signal = result.interruptedBy {
            console.err("explore: interrupted by signal \(signal) after \(Plural.count(result.runsDone, "run")); the reports written are marked incomplete\n")
        }
    }
}

/// The closing summary on stdout: each distinct failure once, with its first run, replay command and shrunk case.
enum ExploreSummary {
    /// Which of the situations the requirements' evidence names the runs reached, and how often.
    static func coverage(_ result: ExploreResult) -> String {
        let reached = Situation.allCases.count - result.unreached.count
        var text = "coverage: \(reached) of \(Situation.allCases.count) situations reached"
        if !result.unreached.isEmpty { text += "; never: " + result.unreached.map(\.rawValue).joined(separator: ", ") }
        let rarest = Situation.allCases.filter { result.coverage[$0, default: 0] > 0 }
            .sorted { (result.coverage[$0, default: 0], $0.rawValue) < (result.coverage[$1, default: 0], $1.rawValue) }.prefix(3)
        if !rarest.isEmpty {
            text += "; rarest: " + rarest.map { "\($0.rawValue) (\(result.coverage[$0, default: 0]) run\(result.coverage[$0, default: 0] == 1 ? "" : "s"))" }
                .joined(separator: ", ")
        }
        return text + "\n"
    }

    static func render(_ result: ExploreResult, shrinking: ExploreShrinking.Outcome, settings: ExploreCommand.Settings) -> String {
        var text = "explore: \(result.failures.count) distinct failure\(result.failures.count == 1 ? "" : "s") in "
            + "\(Plural.count(result.runsDone, "run")) of seed \(settings.options.seed)\n"
        for failure in result.failures {
            text += "\nFAIL \(failure.key)\n  first run: \(failure.run.run)\n  replay:    \(settings.replayCommand(failure.run))\n"
            if let message = failure.finding?.message ?? failure.outcome.reason {
                text += "  finding:   \(message)\n"
            }
            if shrinking.ranOutOfTime(failure) {
                text += "  shrunk:    no (the time budget ran out first; the replay command plays the run)\n"
            }
            if let done = shrinking.shrunk(failure) {
                text += "  shrunk:    \(WorkingDirectory.relative(done.path)) (\(done.acceptanceCase.steps.count) of \(Plural.count(done.originalCount, "step"))"
                    + (done.minimal ? ")\n" : "; not minimal: the time budget ran out)\n")
                text += "  run it:    \(settings.reproduceCommand(caseID: done.acceptanceCase.id))\n"
            }
        }
        // A finding's message and a reason quote client text: every line is escaped as the console's are.
        return ConsoleText.lines(text)
    }
}
