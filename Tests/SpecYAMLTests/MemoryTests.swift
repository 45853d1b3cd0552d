import Foundation
import LongTests
import SpecYAML
import Testing

// Linux only: the resident size is read from /proc/self/statm.
#if os(Linux)
/// libyaml's parser, its event and our copy of the input are freed by their Swift owner. A leak of any of
/// them grows the resident set by at least the input's size per load; 600 loads of a 40 KB file would
/// leak 24 MB (2,000 loads, 80 MB, with the long tests). The bound below is a few MB of allocator noise.
/// Other suites run in the same process at the same time and allocate too, so the test measures three rounds
/// and keeps the smallest growth: a leak grows every round, another test's allocations do not land in all
/// three. (valgrind: see docs/spec-format.md.)
@Suite("Loader memory")
struct MemoryTests {
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("loading a spec 600 times in each of three rounds does not grow memory")
    func repeatedLoadsDoNotLeak() throws {
        // A leak of at least the input's 40 KB per load would grow each round by 24 MB, half again the bound.
        try Self.expectNoGrowth(loadsPerRound: 600)
    }

    @Test("loading a spec thousands of times does not grow memory", .long)
    func manyRepeatedLoadsDoNotLeak() throws {
        try Self.expectNoGrowth(loadsPerRound: 2_000)
    }

    static func expectNoGrowth(loadsPerRound: Int) throws {
        let line = "  - {id: ITEM, text: \"a quoted value that takes some room\", list: [a, b, c]}\n"
        let bytes = Array(("items:\n" + String(repeating: line, count: 600)).utf8)
        #expect(bytes.count > 40_000)
        for _ in 0..<200 { _ = YAMLLoader.load(bytes, file: "warm.yaml") }
        #expect(Self.residentBytes() > 0)
        var growths: [Int] = []
        for _ in 0..<3 {
            let before = Self.residentBytes()
            for _ in 0..<loadsPerRound { _ = YAMLLoader.load(bytes, file: "load.yaml") }
            growths.append(Self.residentBytes() - before)
        }
        let growth = growths.min() ?? 0
        #expect(growth < 16 * 1024 * 1024, "resident memory grew by at least \(growth) bytes in each round: \(growths)")
    }
}
#endif
