#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file the suite is given (a spec file, a world profile, an expected-failures file, a design document,
/// a report) without ever holding more than a limit, and without ever waiting on it: only a regular file is
/// read. A FIFO, a socket or a device is refused at once (it is opened without blocking, so a FIFO with no
/// writer cannot hang the suite); a regular file larger than the limit is refused by its size before a byte is
/// read, and one that grows while it is read (or a `/proc` file, whose size says 0) is read up to one byte past
/// the limit and then refused. docs/spec-format.md, "Limits".
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
        // O_NONBLOCK: opening a FIFO waits for a writer otherwise. Reads block again once it is known to be a file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return .failure(.unreadable(reason: reason(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.unreadable(reason: reason(errno))) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(.unreadable(reason: "it is \(kind(status.st_mode)); only a regular file is read"))
        }
        if Int(status.st_size) > limit { return .failure(.tooLarge(size: Int(status.st_size))) }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { return .failure(.unreadable(reason: reason(errno))) }
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

    /// What a file of this mode is, for a message: "a FIFO (named pipe)".
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    private static func reason(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

/// `read(2)`, named apart from `BoundedFile.read`.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
