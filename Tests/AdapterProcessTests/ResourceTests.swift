@testable import AdapterProcess
import Testing

extension AdapterProcessTests {
    @Suite("Resources")
    struct ResourceTests {
        #if os(Linux)
        // Linux: it compares pipes by identity through /proc/PID/fd.
        @Test("200 spawn and kill cycles leave the number of open file descriptors as it was")
        func spawnAndKillDoesNotLeakDescriptors() throws {
            // One cycle first, so descriptors opened once per test process (by dlopen, Foundation) are counted.
            try AdapterProcess(commandLine: "exec cat").kill()
            let before = Fixture.openDescriptorCount()
            var processIDs: [Int32] = []
            var adapterPipes = Set<String>()
            for cycle in 0..<200 {
                let process = try AdapterProcess(commandLine: cycle.isMultiple(of: 2) ? "exec cat" : Fixture.shell("hangs.sh"))
                processIDs.append(process.processID)
                adapterPipes.formUnion(Fixture.standardPipes(of: process.processID))
                if cycle.isMultiple(of: 3) { try process.send(line: "{}") }
                process.kill()
            }
            #expect(adapterPipes.count == 600, "each adapter had three pipes of its own")
            #expect(Fixture.openPipes().isDisjoint(with: adapterPipes), "no end of any adapter's pipes is still open")
            // Other suites of the package may open files meanwhile, hence the slack; a leak of a single
            // descriptor per cycle would show as 200.
            let growth = Fixture.openDescriptorCount() - before
            #expect(growth < 20, "\(growth) more descriptors open")
            #expect(processIDs.filter(Fixture.exists).isEmpty, "every adapter was reaped")
        }
        #endif
    }
}
