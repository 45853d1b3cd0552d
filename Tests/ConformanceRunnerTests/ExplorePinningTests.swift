import AdapterProcess
@testable import ConformanceRunner
import Foundation
import POSIXSync
import Testing

// Linux only: CPU pinning (CPUPinning) is Linux's sched_setaffinity; the probes read /proc.
#if os(Linux)
/// Through adapter processes, each explore job keeps to one CPU with the processes it starts (`CPUPinning`), so a
/// barrier's round trip is a switch on one CPU. A process is reused only by a job on its CPU.
@Suite("Explore jobs on one CPU each")
struct ExplorePinningTests {
    static let cpus = CPUPinning.currentMask()?.cpus ?? []

    /// The CPUs `processID` may run on, as /proc lists them ("1", "0-1").
    static func allowedCPUs(of processID: Int) -> String? {
        let status = try? String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)
        return status?.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?
            .dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    }

    @Test("an instance runs on the CPU of the thread that launched it, and its process is reused only from that CPU",
          .enabled(if: cpus.count >= 2))
    func reuseStaysOnItsCPU() throws {
        let (a, b) = (Self.cpus[0], Self.cpus[1])
        let launcher = ForkedInstanceTests.zygote()
        defer { launcher.stopIdle() }
        let saved = try #require(CPUPinning.pinCurrentThread(to: a))
        defer { CPUPinning.restore(saved) }
        let first = try launcher.launch(reusing: true)
        #expect(Self.allowedCPUs(of: try ForkedInstanceTests.helloPID(first)) == "\(a)")
        first.kill()
        _ = CPUPinning.pinCurrentThread(to: b)
        let second = try launcher.launch(reusing: false)
        #expect(second !== first, "a process started on another CPU is not taken")
        #expect(Self.allowedCPUs(of: try ForkedInstanceTests.helloPID(second)) == "\(b)")
        second.kill()
        _ = CPUPinning.pinCurrentThread(to: a)
        let third = try launcher.launch(reusing: false)
        #expect(third === first, "the process started on this CPU serves its next instance")
        #expect(Self.allowedCPUs(of: try ForkedInstanceTests.helloPID(third)) == "\(a)")
        third.kill()
    }

    @Test("through adapter processes each job runs on a CPU of its own, and finds the same as when left to the scheduler")
    func pinningDecidesNothing() throws {
        let example = "python3 '\(Harness.packageRoot)/Examples/adapters/python/adapter.py'"
        let machine = try #require(try Harness.bundle(HostileAdapterTests.oneCase).stateMachine)
        let before = CPUPinning.currentMask()
        /// The CPU each thread that played a run was pinned to (`progress` is called on the job's thread).
        func explore(pinned: Bool, launcher: any AdapterLauncher) throws -> (ExploreResult, [UInt: Int?]) {
            defer { launcher.stopIdle() }
            var options = ExploreOptions(seed: 5, runs: 24, jobs: 2)
            options.pinWorkers = pinned
            let seen = Locked([UInt: Int?]())
            let result = try Explorer(machine: machine, launcher: launcher).explore(options, now: { 0 }) { _, _, _ in
                let cpu = CPUPinning.currentCPU()
                seen.withLock { $0[UInt(pthread_self()), default: cpu] = cpu }
            }
            return (result, seen.withLock { $0 })
        }
        let process = { ProcessAdapterLauncher(commandLine: example, timeout: .seconds(20)) }
        let (pinned, pinnedCPUs) = try explore(pinned: true, launcher: process())
        let (unpinned, unpinnedCPUs) = try explore(pinned: false, launcher: process())
        let (_, inProcessCPUs) = try explore(pinned: true, launcher: Harness.launcher(.init()))
        if Self.cpus.count >= 2 {
            // A loaded machine may play every run on one job's thread: each thread that played is pinned, two to two CPUs.
            let cpus = Array(pinnedCPUs.values)
            #expect(!cpus.isEmpty && cpus.allSatisfy { $0.map([Self.cpus[0], Self.cpus[1]].contains) ?? false })
            #expect(Set(cpus).count == cpus.count, "each job on a CPU of its own")
            #expect(unpinnedCPUs.values.allSatisfy { $0 == nil } && inProcessCPUs.values.allSatisfy { $0 == nil },
                    "unpinned: --no-pin, or no process to keep close")
        }
        let counts: (ExploreResult) -> [Int] = { [$0.runsDone, $0.passed, $0.failed, $0.inconclusive, $0.errored, $0.processDeaths] }
        #expect(counts(pinned) == counts(unpinned))
        #expect(pinned.coverage == unpinned.coverage)
        #expect(pinned.failures.map(\.key) == unpinned.failures.map(\.key))
        #expect(CPUPinning.currentMask() == before)
    }
}
#endif
