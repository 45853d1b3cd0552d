import ConformanceReports
import Foundation
import Testing

/// Report files are written to regular files only, through symbolic links, and read bounded in size. Every
/// special file here is made in a temporary folder: the real /dev is never touched.
@Suite("Report files: never clobbered, read bounded")
struct ReportFileTests {
    /// A temporary folder for one test, removed after it.
    final class Folder {
        let url: URL
        init() throws { url = try Paths.temporaryDirectory() }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }

        func fifo(_ name: String) throws -> String {
            let path = path(name)
            try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
            return path
        }

        func fileType(_ name: String) throws -> FileAttributeType? {
            try FileManager.default.attributesOfItem(atPath: path(name))[.type] as? FileAttributeType
        }
    }

    static func writeError(_ text: String = "report", to path: String) -> ReportFile.Error? {
        do {
            try ReportFile.write(text, to: path)
            return nil
        } catch {
            return error
        }
    }

    @Test("a report to a symbolic link replaces the regular file it names, keeps its permissions, and keeps the link")
    func symbolicLinkToAFile() throws {
        let folder = try Folder()
        try "old".write(to: folder.url.appendingPathComponent("target.json"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: folder.path("target.json"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link.json"), withDestinationPath: "target.json")
        try ReportFile.write("new", to: folder.path("link.json"))
        #expect(try folder.fileType("link.json") == .typeSymbolicLink)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("link.json")) == "target.json")
        #expect(try String(contentsOfFile: folder.path("target.json"), encoding: .utf8) == "new")
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.path("target.json"))[.posixPermissions] as? Int
        #expect(permissions == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["link.json", "target.json"],
                "no temporary file is left behind")
    }

    @Test("a report to a symbolic link that names no file yet creates that file and keeps the link")
    func danglingSymbolicLink() throws {
        let folder = try Folder()
        try FileManager.default.createSymbolicLink(atPath: folder.path("link.json"), withDestinationPath: folder.path("later.json"))
        try ReportFile.write("new", to: folder.path("link.json"))
        #expect(try folder.fileType("link.json") == .typeSymbolicLink)
        #expect(try String(contentsOfFile: folder.path("later.json"), encoding: .utf8) == "new")
    }

    @Test("a report to a FIFO is refused without opening it, and the FIFO stays")
    func fifoRefused() throws {
        let folder = try Folder()
        let fifo = try folder.fifo("pipe")
        // Nobody reads the FIFO: opening it to write would block, so a refusal that returns proves it was not opened.
        let error = try #require(Self.writeError(to: fifo))
        #expect(error.description == "cannot write \(fifo): it is a FIFO (named pipe); a report is written to a regular file only")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a report to a symbolic link that names a FIFO is refused, naming both, and neither changes")
    func symbolicLinkToAFIFO() throws {
        let folder = try Folder()
        let fifo = try folder.fifo("pipe")
        try FileManager.default.createSymbolicLink(atPath: folder.path("link.json"), withDestinationPath: "pipe")
        let error = try #require(Self.writeError(to: folder.path("link.json")))
        #expect(error.reason == "it is a symbolic link to \(folder.path("pipe")), a FIFO (named pipe); a report is written to a regular file only")
        #expect(try folder.fileType("link.json") == .typeSymbolicLink)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("a report to a folder, or to a path ending in '/', is refused and the folder stays")
    func folderRefused() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: false)
        #expect(Self.writeError(to: folder.path("out"))?.reason == "it is a folder; a report is written to a regular file only")
        #expect(Self.writeError(to: folder.path("new") + "/")?.reason == "the path ends with '/', so it names a folder, not a file")
        #expect(try folder.fileType("out") == .typeDirectory)
        #expect(!FileManager.default.fileExists(atPath: folder.path("new")))
    }

    @Test("a report in a folder that does not exist creates it; under a file, the folder cannot be, and that is said")
    func missingFolder() throws {
        let folder = try Folder()
        try ReportFile.write("new", to: folder.path("a/b/report.json"))
        #expect(try String(contentsOfFile: folder.path("a/b/report.json"), encoding: .utf8) == "new")
        try "plain".write(to: folder.url.appendingPathComponent("file"))
        let error = try #require(Self.writeError(to: folder.path("file/sub/report.json")))
        #expect(error.description == "cannot write \(folder.path("file/sub/report.json")): \(folder.path("file")) is not a folder")
        #expect(try String(contentsOfFile: folder.path("file"), encoding: .utf8) == "plain")
    }

    #if os(Linux)
    // Linux: /proc takes no new file.
    @Test("a report in a folder where no file can be created is refused with the system's words, naming the folder")
    func unwritableFolder() throws {
        // /proc takes no new file, even from root; /proc/version is a regular file there.
        let error = try #require(Self.writeError(to: "/proc/version"))
        #expect(error.description == "cannot write /proc/version: cannot create a temporary file in /proc to write it: No such file or directory")
    }
    #endif

    @Test("a report in a folder without write permission is refused with the system's words", .enabled(if: getuid() != 0))
    func readOnlyFolder() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(atPath: folder.path("locked"), withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o500])
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path("locked")) }
        let error = try #require(Self.writeError(to: folder.path("locked/report.json")))
        #expect(error.reason == "cannot create a temporary file in \(folder.path("locked")) to write it: Permission denied")
    }

    @Test("a regular file larger than the limit is refused before it is read")
    func oversizeFileRefused() throws {
        let folder = try Folder()
        // Sparse: it takes no disk space, and is refused from its size alone.
        let path = folder.path("big.json")
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(ReportFile.readLimit + 1))
        try handle.close()
        #expect(throws: ReportFile.Error(path: path, reason: "it is larger than 64 MiB, the most a report may be (67108865 bytes)",
                                         reading: true)) {
            _ = try ReportFile.read(path: path).count
        }
    }

    @Test("a pipe (a shell's <(...)) is refused at once, before a byte is read")
    func oversizeStreamRefused() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == 4096)
        close(ends[1])
        // The pipe's read end by path, as a shell's <(...) gives it.
        let path = "/dev/fd/\(ends[0])"
        #expect(throws: ReportFile.Error(path: path, reason: "it is a FIFO (named pipe); only a regular file is read", reading: true)) {
            _ = try ReportFile.read(path: path, limit: 1024).count
        }
    }

    @Test("a file within the limit is read whole; a missing file or a folder is an error with the system's words")
    func readErrors() throws {
        let folder = try Folder()
        try ReportFile.write("{}", to: folder.path("small.json"))
        #expect(try ReportFile.read(path: folder.path("small.json"), limit: 2) == Array("{}".utf8))
        #expect(throws: ReportFile.Error(path: folder.path("missing.json"), reason: "No such file or directory", reading: true)) {
            try ReportFile.read(path: folder.path("missing.json"))
        }
        #expect(throws: ReportFile.Error(path: folder.url.path, reason: "it is a folder; only a regular file is read", reading: true)) {
            try ReportFile.read(path: folder.url.path)
        }
    }
}
