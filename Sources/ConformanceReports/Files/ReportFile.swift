#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SpecYAML

/// The files the commands write (reports, expected-failures files, shrunk cases) and the reports they read.
///
/// Writing never clobbers what a path names: a report goes to a regular file only, written whole to a
/// temporary file beside it and renamed over it, so a reader never sees half a report. A device, FIFO, socket
/// or folder is refused, a symbolic link is followed to the regular file it names (which is replaced; the
/// link stays), and a link to anything else is refused. Every write, the flush to disk and the rename are
/// checked. Reading is bounded: a report larger than ``readLimit`` is refused before it is read.
public enum ReportFile {
    /// The largest report `merge`, `diff` and `run --rerun-failed` read: 64 MiB. The reference's JSON report
    /// is about 3 MB, and 9 MB with every trace kept whole (`--trace-limit 0`).
    public static let readLimit = 64 << 20

    /// `-` and `/dev/stdout` name standard output: a report meant for it is written to it, not through a file.
    public static func isStandardOutput(_ path: String) -> Bool { path == "-" || path == "/dev/stdout" }

    /// Why a file could not be read or written: the path and what went wrong, with the system's words.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        /// What went wrong, without the path: "it is a FIFO (named pipe)", "No such file or directory".
        public let reason: String
        public let reading: Bool

        public init(path: String, reason: String, reading: Bool) {
            self.path = path
            self.reason = reason
            self.reading = reading
        }

        public var description: String { "cannot \(reading ? "read" : "write") \(path): \(reason)" }
    }

    // MARK: Writing

    public static func write(_ text: String, to path: String) throws(Error) {
        try write(Array(text.utf8), to: path)
    }

    /// Writes `text` as a new file at `path` that the suite owns (a shrunk case): a symbolic link there is
    /// replaced by the file, never followed, so the file it points to is left as it is.
    public static func writeReplacingLinks(_ text: String, to path: String) throws(Error) {
        try write(Array(text.utf8), to: path, followingLinks: false)
    }

    /// Writes `bytes` as the whole content of the regular file `path` names, creating its folder if needed.
    /// `followingLinks`: a symbolic link at `path` is followed to the regular file it names (a report path the
    /// user gave); otherwise the link itself is replaced.
    public static func write(_ bytes: [UInt8], to path: String, followingLinks: Bool = true) throws(Error) {
        func failure(_ reason: String) -> Error { Error(path: path, reason: reason, reading: false) }
        guard !path.isEmpty else { throw failure("the path is empty") }
        guard !path.hasSuffix("/") else { throw failure("the path ends with '/', so it names a folder, not a file") }
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else { throw failure(systemText()) }
            if let problem = createFolders(parent(of: path)) { throw failure(problem) }
        }
        let target = followingLinks ? try regularTarget(path) : try entryTarget(path)
        let folder = parent(of: target.path)
        // Beside the file it replaces, so the rename stays in one file system.
        var temporary = ""
        var descriptor: Int32 = -1
        var attempt = 0
        while descriptor < 0 {
            temporary = folder + "/." + (target.path as NSString).lastPathComponent + ".tmp-\(getpid())-\(attempt)"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            attempt += 1
            if descriptor < 0, errno != EEXIST || attempt == 100 {
                throw failure("cannot create a temporary file in \(folder) to write it: \(systemText())")
            }
        }
        var problem: String?
        if let mode = target.mode, fchmod(descriptor, mode) != 0 { problem = "cannot give it the old file's permissions: \(systemText())" }
        if problem == nil { problem = writeAll(bytes, to: descriptor).map { "writing failed: \($0)" } }
        if problem == nil, fsync(descriptor) != 0 { problem = "writing failed: \(systemText())" }
        if close(descriptor) != 0, problem == nil { problem = "writing failed: \(systemText())" }
        if problem == nil, rename(temporary, target.path) != 0 { problem = "cannot rename the written file over it: \(systemText())" }
        if let problem {
            unlink(temporary)
            throw failure(problem)
        }
    }

    /// Writes all of `bytes` to an open descriptor (standard output, for a report meant for it); the system's
    /// words when a write fails.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return systemText()
            }
            offset += written
        }
        return nil
    }

    /// The file a write replaces or creates: `path`, or the end of its chain of symbolic links; the mode of
    /// the regular file there, if any. Anything but a regular file or nothing is refused.
    private static func regularTarget(_ path: String) throws(Error) -> (path: String, mode: mode_t?) {
        var current = path
        var info = stat()
        var links = 0
        while lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            links += 1
            guard links <= 40, let destination = linkDestination(current) else {
                throw Error(path: path, reason: "its symbolic links cannot be followed: \(systemText(links > 40 ? ELOOP : errno))",
                            reading: false)
            }
            current = destination.hasPrefix("/") ? destination : parent(of: current) + "/" + destination
        }
        let linked = current == path ? "" : "a symbolic link to \(current), "
        guard lstat(current, &info) == 0 else {
            guard errno == ENOENT else { throw Error(path: path, reason: linked + systemText(), reading: false) }
            return (current, nil)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Error(path: path, reason: "it is \(linked)\(kind(info.st_mode)); a report is written to a regular file only",
                        reading: false)
        }
        return (current, info.st_mode & 0o7777)
    }

    /// The file a write replaces or creates without following links: `path` itself, when it is nothing, a
    /// regular file (its mode kept) or a symbolic link (replaced by the file); anything else is refused.
    private static func entryTarget(_ path: String) throws(Error) -> (path: String, mode: mode_t?) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw Error(path: path, reason: systemText(), reading: false) }
            return (path, nil)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return (path, info.st_mode & 0o7777)
        case S_IFLNK: return (path, nil)
        default: throw Error(path: path, reason: "it is \(kind(info.st_mode)); a file is written to a regular file only", reading: false)
        }
    }

    private static func linkDestination(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates `folder` and its missing parents; what went wrong, if anything.
    private static func createFolders(_ folder: String) -> String? {
        var info = stat()
        if stat(folder, &info) == 0 {
            return info.st_mode & S_IFMT == S_IFDIR ? nil : "\(folder) is not a folder"
        }
        guard errno == ENOENT || errno == ENOTDIR else { return "cannot use the folder \(folder): \(systemText())" }
        let above = parent(of: folder)
        if above != folder, let problem = createFolders(above) { return problem }
        guard mkdir(folder, 0o777) == 0 || errno == EEXIST else { return "cannot create the folder \(folder): \(systemText())" }
        return nil
    }

    private static func parent(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// What a file of this mode is, for a message: "a FIFO (named pipe)".
    static func kind(_ mode: mode_t) -> String { BoundedFile.kind(mode) }

    /// "64 MiB" for whole mebibytes, else the bytes.
    static func size(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    private static func systemText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    // MARK: Reading

    /// The bytes of the file `path` names, at most `limit` of them: a larger regular file is refused before it
    /// is read, and anything else (a pipe, a /proc file) when more than `limit` bytes came.
    public static func read(path: String, limit: Int = readLimit) throws(Error) -> [UInt8] {
        switch BoundedFile.read(path, limit: limit) {
        case .success(let bytes):
            return bytes
        case .failure(.unreadable(let reason)):
            throw Error(path: path, reason: reason, reading: true)
        case .failure(.tooLarge(let size)):
            let tooLarge = "it is larger than \(Self.size(limit)), the most a report may be"
            throw Error(path: path, reason: tooLarge + (size.map { " (\($0) bytes)" } ?? ""), reading: true)
        }
    }
}

// The system call by a name of its own: inside ``ReportFile``, `write` names its methods.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, buffer, count) }
