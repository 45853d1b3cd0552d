import Foundation
import SpecYAML
import Testing

/// Files the suite is given are read up to a limit and no further, whatever kind of file the path names.
@Suite("Bounded file reads")
struct BoundedFileTests {
    static func temporaryFile(bytes: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString).yaml").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(ascii: "a"), count: bytes)))
        return path
    }

    @Test("a regular file up to the limit is read whole; one byte more is refused by its size")
    func regularFile() throws {
        let fits = try Self.temporaryFile(bytes: 10)
        let over = try Self.temporaryFile(bytes: 11)
        defer {
            try? FileManager.default.removeItem(atPath: fits)
            try? FileManager.default.removeItem(atPath: over)
        }
        #expect(BoundedFile.read(fits, limit: 10) == .success(Array(repeating: UInt8(ascii: "a"), count: 10)))
        #expect(BoundedFile.read(over, limit: 10) == .failure(.tooLarge(size: 11)))
    }

    @Test("a device is refused at once, before a byte is read")
    func deviceRefused() {
        #expect(BoundedFile.read("/dev/zero", limit: 100_000)
                == .failure(.unreadable(reason: "it is a character device; only a regular file is read")))
    }

    #if os(Linux)
    // Linux: /proc.
    @Test("a /proc file, whose size says 0, is read up to the limit")
    func procFile() throws {
        guard case .success(let bytes) = BoundedFile.read("/proc/self/status", limit: 1 << 20) else {
            Issue.record("/proc/self/status was not read")
            return
        }
        #expect(!bytes.isEmpty)
        #expect(BoundedFile.read("/proc/self/status", limit: 10) == .failure(.tooLarge(size: nil)))
    }
    #endif

    @Test("a folder or a missing file is unreadable, with the reason")
    func unreadable() {
        #expect(BoundedFile.read(FileManager.default.temporaryDirectory.path)
                == .failure(.unreadable(reason: "it is a folder; only a regular file is read")))
        #expect(BoundedFile.read("/nonexistent/spec.yaml") == .failure(.unreadable(reason: "No such file or directory")))
    }

    @Test("the error for a file over the limit names its size, or that it has more")
    func messages() {
        #expect(BoundedFile.tooLargeMessage(5_000_000) == "the file has 5000000 bytes; a spec file may have at most 4194304 (4 MiB)")
        #expect(BoundedFile.tooLargeMessage(nil, what: "an expected-failures file")
            == "the file has more than 4194304 bytes; an expected-failures file may have at most 4194304 (4 MiB)")
    }
}
