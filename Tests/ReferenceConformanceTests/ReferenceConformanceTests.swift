import ConformanceProtocol
import ConformanceRunner
import Foundation
import ReferenceAdapter
import SpecModel
import Testing

enum Paths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let specs = root.appendingPathComponent("Specs").path

    /// The reference adapter executable SwiftPM built beside the test bundle.
    static var referenceAdapter: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("session-conformance-reference-adapter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}

@Suite("The reference implementation against the suite")
struct ReferenceConformanceTests {
    static func bundle() throws -> SpecBundle {
        let lint = SpecLinter.lint(paths: [Paths.specs], specRoot: Paths.specs)
        try #require(lint.errorCount == 0, "Specs/ must lint clean:\n\(lint.rendered())")
        return lint.bundle
    }

    static func failures(_ result: RunResult) -> String {
        result.outcomes.filter { $0.status != .pass }.map { outcome in
            "\(outcome.caseID): \(outcome.status.rawValue) \(outcome.reason ?? "")\n"
                + outcome.findings.map { "  [\($0.requirements.joined(separator: ", "))] \($0.message)" }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The variants the reference cannot play (docs/spec-format.md, "Held requests and the clock").
    static let skippedVariants = ["late-401-retries-with-the-latest-token[expiry]"]

    @Test("in-process, the reference passes every case and every MUST requirement")
    func inProcessPassesEverything() throws {
        let runner = SuiteRunner(bundle: try Self.bundle(), launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        })
        let result = runner.run(RunOptions(seed: 1))
        #expect(result.outcomes.allSatisfy { $0.status == .pass || $0.skippedForItsTrigger }, "\(Self.failures(result))")
        // It refreshes 30 s ahead of expiry, so no token expires under the request this variant holds.
        #expect(result.outcomes.filter(\.skippedForItsTrigger).map(\.caseID) == Self.skippedVariants)
        #expect(result.mustRequirementsPass)
        #expect(!result.requirements.contains { $0.status == .untested }, "every testable requirement has a case")
    }

    @Test("every testable requirement names its evidence, and the reference's run reaches every situation named")
    func everySituationReached() throws {
        let bundle = try Self.bundle()
        let catalogue = try #require(bundle.catalogue)
        let testable = catalogue.requirements.filter(\.level.isTestable)
        #expect(testable.filter(\.evidence.isEmpty).map(\.id) == [], "no pass without evidence: every requirement lists some")
        let runner = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        })
        let result = runner.run(RunOptions(seed: 1))
        let reached = result.outcomes.reduce(into: Set<Situation>()) { $0.formUnion($1.reached) }
        let named = Set(testable.flatMap(\.evidence))
        #expect(named.subtracting(reached).map(\.rawValue).sorted() == [], "a situation no case of the suite reaches")
        #expect(Set(Situation.allCases).subtracting(named).map(\.rawValue).sorted() == [], "a situation no requirement needs")
    }

    @Test("in-process under the rfc6749 world, the reference speaks the token endpoint and passes every case")
    func inProcessPassesEverythingUnderRFC6749() throws {
        let bundle = try Self.bundle()
        let rfc6749 = try #require(bundle.worlds.first { $0.name == "rfc6749" })
        let runner = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        })
        let result = runner.run(RunOptions(seed: 1, world: rfc6749))
        #expect(result.world?.name == "rfc6749")
        #expect(result.outcomes.count == bundle.playableCases.count)
        #expect(result.outcomes.allSatisfy { $0.status == .pass || $0.skippedForItsTrigger }, "\(Self.failures(result))")
        #expect(result.mustRequirementsPass)
        let paths = Set(result.outcomes.flatMap { $0.trace.events.compactMap { event -> String? in
            if case .received(.http(_, _, let request)) = event.kind { return request.path }
            return nil
        } })
        #expect(paths.contains("/oauth/token") && paths.contains("/oauth/revoke"))
        #expect(!paths.contains { $0.hasPrefix("/auth/") }, "the json-v1 endpoints are not spoken under rfc6749")
    }

    @Test("a profile given in code whose field names clash (one lint refuses) gives verdicts, never a trap")
    func clashingFieldNamesDoNotTrap() throws {
        let bundle = try Self.bundle()
        // Sign-in's two fields share a name; the refresh token is named like the grant type the refresh carries,
        // the revoked token like RFC 7009's token_type_hint. Each built a dictionary literal with two equal keys.
        let jsonV1 = try #require(bundle.worlds.first { $0.name == "json-v1" })
        var signIn = jsonV1
        signIn.name = "clashing-sign-in"
        signIn.signIn.passwordField = "email"
        var refreshAndRevocation = jsonV1
        refreshAndRevocation.name = "clashing-refresh"
        refreshAndRevocation.refresh.refreshTokenField = "grant_type"
        refreshAndRevocation.revocation.tokenField = "token_type_hint"
        let runner = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        })
        for world in [signIn, refreshAndRevocation] {
            let result = runner.run(RunOptions(seed: 1, filters: ["one-401-refreshes-and-retries-once", "sign-out-blocks-and-clears"],
                                               world: world))
            #expect(result.world?.name == world.name)
            #expect(result.outcomes.count == 2)
        }
    }

    @Test("without --world, an in-process run is under json-v1")
    func inProcessDefaultsToJSONV1() throws {
        let runner = SuiteRunner(bundle: try Self.bundle(), launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        })
        let result = runner.run(RunOptions(seed: 1, filters: ["one-401-refreshes-and-retries-once"]))
        #expect(result.world?.name == "json-v1")
        #expect(result.outcomes.map(\.status) == [.pass])
    }

    @Test("through its adapter process, the reference gives the same verdicts as in-process")
    func processMatchesInProcess() throws {
        let adapter = try #require(Paths.referenceAdapter, "build the reference adapter first (swift build)")
        let bundle = try Self.bundle()
        let viaProcess = SuiteRunner(bundle: bundle, launcher: ProcessAdapterLauncher(
            commandLine: "'\(adapter)'", timeout: .seconds(30))).run(RunOptions(seed: 1))
        let inProcess = SuiteRunner(bundle: bundle, launcher: InProcessLauncher(description: "in-process") {
            ReferenceClientAdapter()
        }).run(RunOptions(seed: 1))
        #expect(viaProcess.outcomes.allSatisfy { $0.status == .pass || $0.skippedForItsTrigger }, "\(Self.failures(viaProcess))")
        #expect(viaProcess.outcomes.filter(\.skippedForItsTrigger).map(\.caseID) == Self.skippedVariants)
        #expect(viaProcess.outcomes.map(\.caseID) == inProcess.outcomes.map(\.caseID))
        for (process, local) in zip(viaProcess.outcomes, inProcess.outcomes) {
            let processTrace = TraceRenderer(vault: process.vault).render(process.trace)
            let localTrace = TraceRenderer(vault: local.vault).render(local.trace)
            #expect(processTrace == localTrace, "the traces of \(process.caseID) differ between the connections")
        }
    }

    @Test("the same seed gives the same trace; another seed other token values")
    func determinism() throws {
        let bundle = try Self.bundle()
        let launcher = InProcessLauncher(description: "in-process") { ReferenceClientAdapter() }
        let options = RunOptions(seed: 42, filters: ["five-concurrent-401s-share-one-refresh", "rapid-switching"])
        let first = SuiteRunner(bundle: bundle, launcher: launcher).run(options)
        let second = SuiteRunner(bundle: bundle, launcher: launcher).run(options)
        let other = SuiteRunner(bundle: bundle, launcher: launcher).run(RunOptions(seed: 43, filters: options.filters))
        for ((a, b), c) in zip(zip(first.outcomes, second.outcomes), other.outcomes) {
            #expect(a.trace.events.count == b.trace.events.count)
            #expect(TraceRenderer(vault: a.vault).render(a.trace) == TraceRenderer(vault: b.vault).render(b.trace))
            let rawA = a.trace.events.map { "\($0.kind)" }.joined()
            let rawC = c.trace.events.map { "\($0.kind)" }.joined()
            #expect(rawA != rawC, "a different seed must issue different token values")
        }
    }
}
