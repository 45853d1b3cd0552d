#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file the suite is given (a spec file, a world profile, an expected-failures file, a design document)
/// without ever holding more than a limit: a regular file larger than the limit is refused by its size before
/// a byte is read, and anything else (a pipe, `/dev/zero`, a file that grows while it is read) is read up to
/// one byte past the limit and then refused. docs/spec-format.md, "Limits".
public enum BoundedFile {
    /// Why a file was not read.
    public enum Problem: Error, Sendable, Equatable {
        /// The file could not be opened or read; the system's reason ("No such file or directory").
        case unreadable(reason: String)
        /// The file holds more than the limit: its size when it is a regular file, nil when it was read
        /// until the limit was passed.
        case tooLarge(size: Int?)
    }

    /// At most `limit` bytes of the file at `path`, all of it.
    public static func read(_ path: String, limit: Int = SpecLimits.fileBytes) -> Result<[UInt8], Problem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unreadable(reason: reason(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.unreadable(reason: reason(errno))) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return .failure(.unreadable(reason: "it is a folder")) }
        if (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > limit {
            return .failure(.tooLarge(size: Int(status.st_size)))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(reason: reason(errno)))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .failure(.tooLarge(size: nil))
    }

    /// The error message for a file of `size` bytes (nil: more than the limit) that `what` names
    /// ("a spec file", "an expected-failures file").
    public static func tooLargeMessage(_ size: Int?, what: String = "a spec file", limit: Int = SpecLimits.fileBytes) -> String {
        let has = size.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        return "the file has \(has); \(what) may have at most \(limit) (\(limit / (1024 * 1024)) MiB)"
    }

    private static func reason(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

/// `read(2)`, named apart from `BoundedFile.read`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
