import ConformanceRunner
import Foundation
import SpecModel

/// A run of the suite that produces a report: what `session-conformance run` does between parsing its
/// options and writing files.
public struct ReportingRun: Sendable {
    public var runner: SuiteRunner
    public var options: RunOptions
    public var shard: Shard?
    public var suiteVersion: String
    public var specRoot: String
    /// The command that chooses the client, for the reproduce lines: `session-conformance run --adapter '...'`.
    public var command: String
    public var expectedFailures: ExpectedFailures?
    public var strictExpectedFailures: Bool
    public var traceLimit: Int

    public init(runner: SuiteRunner, options: RunOptions, shard: Shard? = nil, suiteVersion: String, specRoot: String,
                command: String, expectedFailures: ExpectedFailures? = nil, strictExpectedFailures: Bool = true,
                traceLimit: Int = ReportContext.defaultTraceLimit) {
        self.runner = runner
        self.options = options
        self.shard = shard
        self.suiteVersion = suiteVersion
        self.specRoot = specRoot
        self.command = command
        self.expectedFailures = expectedFailures
        self.strictExpectedFailures = strictExpectedFailures
        self.traceLimit = traceLimit
    }

    /// The options with the shard applied: the shard's part of the cases the filters select.
    public var effectiveOptions: RunOptions {
        var options = options
        if let shard {
            options.only = shard.select(runner.selectedCases(options).map(\.id))
        }
        return options
    }

    public func execute(progress: @Sendable (Int, Int, CaseOutcome) -> Void = { _, _, _ in }) throws(SpecDigest.ReadError)
        -> (result: RunResult, report: ComplianceReport)
    {
        let digest = try SpecDigest.of(specRoot: specRoot)
        let options = effectiveOptions
        let started = Date()
        let result = runner.run(options, progress: progress)
        let finished = Date()
        let context = ReportContext(
            suiteVersion: suiteVersion, specRoot: specRoot, specDigest: digest, bundle: runner.bundle, command: command,
            startedAt: started, finishedAt: finished, shard: shard, filters: options.filters,
            expectedFailures: expectedFailures, strictExpectedFailures: strictExpectedFailures, traceLimit: traceLimit)
        return (result, ReportBuilder.build(result, context: context))
    }
}

extension ComplianceReport {
    /// The report without what differs from run to run of the same suite, spec, client and seed: the wall
    /// clock (start, end, durations). Two such reports are equal exactly when the runs gave the same results.
    public func removingWallClock() -> ComplianceReport {
        var copy = self
        copy.run.startedAt = ""
        copy.run.finishedAt = ""
        copy.summary.durationSeconds = 0
        for index in copy.cases.indices { copy.cases[index].durationSeconds = 0 }
        return copy
    }
}
