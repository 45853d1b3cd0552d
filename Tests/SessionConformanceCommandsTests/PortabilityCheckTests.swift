import Foundation
import PythonRunner
import Testing

/// scripts/check-portability.py, run in .ci/run: on Linux it keeps the package buildable on macOS. It must pass on
/// the repository and fail on each kind of planted mistake, in compiler form.
@Suite("Portability check")
struct PortabilityCheckTests {
    static let script = Paths.root.appendingPathComponent("scripts/check-portability.py").path

    /// A package of one source file in `module` (and a Package.swift declaring `platforms`, when given), checked.
    static func check(_ source: String, platforms: String? = ".macOS(.v14)", module: String = "Planted") throws -> (status: Int32, output: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("portability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Sources/\(module)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("Planted.swift"), atomically: true, encoding: .utf8)
        let manifest = "let package = Package(name: \"p\"" + (platforms.map { ", platforms: [\($0)]" } ?? "") + ")\n"
        try manifest.write(to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let result = try Python.run([script, root.path])
        return (result.status, result.stdout)
    }

    @Test("the repository passes")
    func repositoryPasses() throws {
        let result = try Python.run([Self.script])
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test("an unguarded Glibc call fails with its place, the line and a caret")
    func plantedGlibcCallFails() throws {
        let result = try Self.check("""
            import Glibc

            func drain(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
                Glibc.read(fd, buffer.baseAddress, buffer.count)
            }
            """)
        #expect(result.status == 1)
        #expect(result.output == """
            Sources/Planted/Planted.swift:1:8: error: the Glibc module outside a guard: macOS has no such thing; put it under '#if canImport(Glibc)' or '#if os(Linux)' with an Apple branch
            import Glibc
                   ^
            Sources/Planted/Planted.swift:4:5: error: the Glibc module outside a guard: macOS has no such thing; put it under '#if canImport(Glibc)' or '#if os(Linux)' with an Apple branch
                Glibc.read(fd, buffer.baseAddress, buffer.count)
                ^
            check-portability: 2 errors

            """)
    }

    @Test("the same call under a guard with an Apple branch passes; under the Apple branch it fails")
    func guardedCallPasses() throws {
        let guarded = """
            #if canImport(Glibc)
            import Glibc
            let cpu = sched_getcpu()
            #elseif canImport(Darwin)
            import Darwin
            #else
            let unknown = 0
            #endif
            #if !canImport(Darwin)
            let pipes = "/proc/self/fd"
            #endif
            """
        #expect(try Self.check(guarded).status == 0)
        let misplaced = """
            #if canImport(Darwin)
            let cpu = sched_getcpu()
            #endif
            """
        let result = try Self.check(misplaced)
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("Sources/Planted/Planted.swift:2:11: error: sched_* affinity calls outside a guard"))
    }

    @Test("/proc, epoll and an Apple-only module outside their guards fail")
    func otherPlatformSymbolsFail() throws {
        let result = try Self.check("""
            let status = "/proc/self/status"
            let events = epoll_create1(0)
            import Darwin
            """)
        #expect(result.status == 1)
        let places = result.output.split(separator: "\n").filter { $0.contains(": error: ") }.map { $0.split(separator: " ")[0] }
        #expect(places == ["Sources/Planted/Planted.swift:1:14:", "Sources/Planted/Planted.swift:2:14:", "Sources/Planted/Planted.swift:3:8:"])
    }

    @Test("Mutex needs macOS 15: it fails against macOS 14 or no platforms declared, and passes against macOS 15")
    func newerAPIFails() throws {
        let source = "import Synchronization\nlet counter = Mutex(0)\n"
        let fourteen = try Self.check(source)
        #expect(fourteen.status == 1)
        #expect(fourteen.output.contains("Planted.swift:2:15: error: Synchronization.Mutex needs macOS 15; the package supports macOS 14 (Package.swift)"))
        let undeclared = try Self.check(source, platforms: nil)
        #expect(undeclared.output.contains("the package supports SwiftPM's default, macOS 10.13 (Package.swift declares no platforms)"))
        #expect(try Self.check(source, platforms: ".macOS(.v15)").status == 0)
    }

    @Test("task executor preference needs macOS 15: a task that prefers an executor fails against macOS 14")
    func executorPreferenceNeedsFifteen() throws {
        let source = "func start(_ executor: any TaskExecutor) {\n    Task(executorPreference: executor) {}\n}\n"
        let fourteen = try Self.check(source)
        #expect(fourteen.status == 1)
        #expect(fourteen.output.contains("Planted.swift:1:28: error: task executor preference (SE-0417) needs macOS 15; the package supports macOS 14 (Package.swift)"))
        #expect(fourteen.output.contains("Planted.swift:2:10: error: task executor preference (SE-0417) needs macOS 15"))
        #expect(try Self.check(source, platforms: ".macOS(.v15)").status == 0)
    }

    @Test("starting a process in a module an iOS app links fails; in another module it passes")
    func processInAnIOSModuleFails() throws {
        let source = "import Foundation\nlet child = Process()\n"
        let result = try Self.check(source, module: "AdapterKit")
        #expect(result.status == 1)
        #expect(result.output.contains("Sources/AdapterKit/Planted.swift:2:13: error: Foundation.Process in a module an iOS app links"))
        #expect(try Self.check(source, module: "AdapterProcess").status == 0)
    }
}
