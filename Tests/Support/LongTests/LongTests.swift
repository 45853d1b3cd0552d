import Foundation
import Testing

/// The long sweeps: every case swept with kills and write failures, the full mutant matrices, long exploration
/// and fuzzing, the example adapters run through whole suites. They run when SESSION_CONFORMANCE_LONG_TESTS=1
/// (`.ci/run` sets it); a default `swift test` runs a fast representative of each instead, so every code path
/// is still exercised (docs/performance.md#test-suite).
public enum LongTests {
    public static let variable = "SESSION_CONFORMANCE_LONG_TESTS"

    /// Whether the long sweeps run.
    public static var enabled: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    public static let skipReason: Comment =
        "long sweep, skipped by default: run it with SESSION_CONFORMANCE_LONG_TESTS=1 swift test (.ci/run sets it)"

    /// The elements of `all` that are not `representatives`, for the long test that covers the rest.
    public static func rest<Element: Equatable>(of all: [Element], without representatives: [Element]) -> [Element] {
        all.filter { !representatives.contains($0) }
    }
}

extension Trait where Self == ConditionTrait {
    /// A long sweep: runs with SESSION_CONFORMANCE_LONG_TESTS=1, skipped otherwise with how to run it.
    public static var long: Self { .enabled(if: LongTests.enabled, LongTests.skipReason) }
}
