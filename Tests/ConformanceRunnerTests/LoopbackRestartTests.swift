@testable import ConformanceRunner
import Foundation
import Testing

/// A client whose token cache is keyed by the token URL finds its tokens after a restart only if the world is
/// served at the same URL: the loopback port is the case's, not the process's.
@Suite("Loopback across a real process restart")
struct LoopbackRestartTests {
    static let fixture = Harness.packageRoot + "/Tests/AdapterProcessTests/Fixtures/loopback_records_base_url.py"
    static let killAndRelaunch = Harness.caseFile("""
          - id: loopback-restart
            title: Launch, kill the process, launch again
            requirements: [RESTORE-EXPLICIT-STATE]
            steps:
              - launch: {}
              - expect: { for: [RESTORE-EXPLICIT-STATE], state: signedOut }
              - kill: {}
              - launch: {}
              - expect: { for: [RESTORE-EXPLICIT-STATE], state: signedOut }

        """)

    /// Runs the case with the fixture adapter; returns the base URLs its processes were welcomed with.
    static func baseURLs(loopbackPort: UInt16? = nil) throws -> (outcome: CaseOutcome, urls: [String]) {
        let record = FileManager.default.temporaryDirectory
            .appendingPathComponent("loopback-base-urls-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: record) }
        let launcher = ProcessAdapterLauncher(commandLine: "exec python3 -u '\(fixture)' '\(record)'",
                                              timeout: .seconds(20), loopbackPort: loopbackPort)
        let result = try Harness.run(Self.killAndRelaunch, launcher: launcher)
        let outcome = try #require(result.outcomes.first)
        let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
        return (outcome, text.split(separator: "\n").map(String.init))
    }

    @Test("the relaunched process is welcomed with the base URL the killed one had, and it serves there")
    func sameBaseURLAfterKill() throws {
        let (outcome, urls) = try Self.baseURLs()
        #expect(outcome.status == .pass, "\(outcome.status): \(outcome.reason ?? "") \(Harness.describe(outcome.findings))")
        #expect(urls.count == 2, "one welcome per process: \(urls)")
        #expect(urls.first?.hasPrefix("http://127.0.0.1:") == true)
        #expect(Set(urls).count == 1, "\(urls)")
    }

    @Test("a pinned loopback port (run --loopback-port) serves both processes of the case at that port")
    func pinnedPortAcrossKill() throws {
        // A port that was free a moment ago: the one an unpinned run picked.
        let picked = try Self.baseURLs().urls.first
        let port = try #require(picked.flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0) })
        let (outcome, urls) = try Self.baseURLs(loopbackPort: port)
        #expect(outcome.status == .pass, "\(outcome.status): \(outcome.reason ?? "") \(Harness.describe(outcome.findings))")
        #expect(urls == ["http://127.0.0.1:\(port)", "http://127.0.0.1:\(port)"])
    }
}
