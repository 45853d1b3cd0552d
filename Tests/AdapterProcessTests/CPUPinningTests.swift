@testable import AdapterProcess
import Testing

extension AdapterProcessTests {
    @Suite("Keeping a worker and its adapter on one CPU")
    struct CPUPinningTests {
        static let cpus = CPUPinning.currentMask()?.cpus ?? []

        @Test("a pinned thread runs on its CPU alone and gets its mask back", .enabled(if: !cpus.isEmpty))
        func pinAndRestore() throws {
            let before = try #require(CPUPinning.currentMask())
            let cpu = try #require(Self.cpus.last)
            let saved = try #require(CPUPinning.pinCurrentThread(to: cpu))
            #expect(saved == before)
            #expect(CPUPinning.currentCPU() == cpu)
            #expect(CPUPinning.runningCPU() == cpu)
            CPUPinning.restore(saved)
            #expect(CPUPinning.currentMask() == before)
            #expect(CPUPinning.currentCPU() == (before.cpus.count == 1 ? cpu : nil))
        }

        @Test("a CPU outside the mask is refused and nothing changes", .enabled(if: !cpus.isEmpty))
        func outsideTheMask() throws {
            let before = try #require(CPUPinning.currentMask())
            #expect(CPUPinning.pinCurrentThread(to: 1_023) == nil || Self.cpus.contains(1_023))
            #expect(CPUPinning.pinCurrentThread(to: -1) == nil)
            #expect(CPUPinning.pinCurrentThread(to: 4_096) == nil)
            #expect(CPUPinning.currentMask() == before)
        }

        @Test("an adapter started from a pinned thread runs on that CPU, its children and their children too",
              .enabled(if: cpus.count >= 2))
        func processesInherit() throws {
            let cpu = try #require(Self.cpus.last)
            let saved = try #require(CPUPinning.pinCurrentThread(to: cpu))
            let process: AdapterProcess
            do {
                defer { CPUPinning.restore(saved) }
                let allowed = "grep Cpus_allowed_list /proc/self/status"
                process = try AdapterProcess(commandLine: "\(allowed); sh -c '\(allowed)'")
            }
            #expect(process.receive(timeout: Fixture.patience) == .line("Cpus_allowed_list:\t\(cpu)"))
            #expect(process.receive(timeout: Fixture.patience) == .line("Cpus_allowed_list:\t\(cpu)"))
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
        }
    }
}
