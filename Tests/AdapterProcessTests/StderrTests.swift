@testable import AdapterProcess
import Testing

extension AdapterProcessTests {
    @Suite("stderr capture")
    struct StderrTests {
        @Test("only the last 64 KiB of stderr are kept, and the tail starts at a whole line")
        func stderrIsBounded() throws {
            let process = try AdapterProcess(commandLine: Fixture.python("floods_stderr.py"))
            #expect(process.receive(timeout: Fixture.patience) == .endOfStream(.exited(0)))
            #expect(process.stderrByteCount == 20_000 * 18)  // "stderr line 00001\n" is 18 bytes
            #expect(process.stderrAll.utf8.count == AdapterProcess.stderrCapacity)
            #expect(process.stderrTail(maxLines: 2) == "stderr line 19999\nstderr line 20000")
            let kept = process.stderrTail(maxLines: .max).split(separator: "\n")
            #expect(kept.first?.hasPrefix("stderr line ") == true, "the cut first line is left out")
            #expect(kept.count == AdapterProcess.stderrCapacity / 18)
        }

        @Test("the ring keeps the newest bytes in order across wrap-arounds")
        func ringKeepsNewestBytes() {
            var ring = StderrRingBuffer(capacity: 8)
            ring.append(Array("abc".utf8))
            #expect(ring.bytes == Array("abc".utf8))
            #expect(!ring.hasDropped)
            ring.append(Array("defghij".utf8))
            #expect(ring.bytes == Array("cdefghij".utf8))
            ring.append(Array("0123456789AB".utf8))
            #expect(ring.bytes == Array("456789AB".utf8))
            #expect(ring.totalByteCount == 22)
            #expect(ring.hasDropped)
        }

        @Test("a chunk larger than the ring wraps in bulk and keeps exactly its last bytes, in order")
        func bulkWrapAround() {
            var ring = StderrRingBuffer(capacity: 5)
            ring.append(Array("abc".utf8))
            ring.append(Array("defg".utf8))
            #expect(ring.bytes == Array("cdefg".utf8))
            ring.append(Array("hi".utf8))
            #expect(ring.bytes == Array("efghi".utf8))
            ring.append((0..<1_000_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            #expect(ring.bytes == (999_995..<1_000_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            #expect(ring.totalByteCount == 1_000_009)
        }

        @Test("the tail drops the cut first line only when bytes were dropped")
        func tailLines() {
            var ring = StderrRingBuffer(capacity: 16)
            ring.append(Array("one\ntwo\nthree\n".utf8))
            #expect(ring.tail(maxLines: 5) == "one\ntwo\nthree")
            #expect(ring.tail(maxLines: 1) == "three")
            #expect(ring.tail(maxLines: 0) == "")
            ring.append(Array("fourth\n".utf8))
            #expect(ring.bytes == Array("wo\nthree\nfourth\n".utf8))
            #expect(ring.tail(maxLines: 5) == "three\nfourth", "the cut line 'wo' is left out")
        }
    }
}
