import AdapterKit
import AdapterProcess
import ConformanceRunner
import Foundation
import JSONCore
import POSIXSync
import PythonRunner
import ReferenceAdapter
import SessionConformanceCommands
import Testing

/// `--listen HOST:PORT --launch CMD [--kill CMD]`: a client that connects over TCP gets the verdicts it gets on
/// stdin/stdout, kills included. scripts/socket-client.py stands for the device: it connects and runs the example
/// adapter with its stdin and stdout on the connection; a kill ends its process group, the adapter with it.
@Suite("Socket transport", .serialized)
struct SocketTransportTests {
    static let bridge = Paths.root.appendingPathComponent("scripts/socket-client.py").path

    static var nodeWithAxios: Bool {
        FileManager.default.fileExists(atPath: "/usr/share/nodejs/axios/package.json")
            && ["/usr/bin/node", "/usr/local/bin/node"].contains(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// The requirement and case verdicts of a run over `client` (the arguments that choose it) of the cases `-k pattern`
    /// selects, from its JSON report.
    static func verdicts(_ client: [String], filters: [String]) throws -> (requirements: [String: String], cases: [String: String], code: ExitCode) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("socket-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let console = BufferConsole()
        let arguments = ["run", "--spec-root", Paths.specs, "--timeout", "60", "--report", "json=\(report)"]
            + filters.flatMap { ["-k", $0] } + client
        let code = SessionConformance.main(arguments: arguments, console: console)
        let json = try JSONParser.parse(String(contentsOfFile: report, encoding: .utf8))
        let pairs = { (key: String) in
            Dictionary(uniqueKeysWithValues: (json[key]?.array ?? []).compactMap { item in
                item["id"]?.string.flatMap { id in item["status"]?.string.map { (id, $0) } }
            })
        }
        return (pairs("requirements"), pairs("cases"), code)
    }

    static func compare(adapter: String, world: [String] = [], filters: [String]) throws {
        let stdio = try verdicts(["--adapter", adapter] + world, filters: filters)
        let launch = "python3 '\(bridge)' 127.0.0.1:{port} \(adapter)"
        let socket = try verdicts(["--listen", "127.0.0.1:0", "--launch", launch] + world, filters: filters)
        #expect(!stdio.cases.isEmpty)
        #expect(stdio.cases.values.contains("pass"))
        #expect(!stdio.cases.values.contains("error"), "\(stdio.cases)")
        #expect(socket.cases == stdio.cases)
        #expect(socket.requirements == stdio.requirements)
        #expect(socket.code == stdio.code)
    }

    /// Kills of every kind (at once, at a storage write, with a refresh in flight), a restore, and the refreshes.
    static let selection = ["kill", "restart", "launch-with", "refresh"]

    @Test("the Python example gets the same verdicts over a socket as on stdin and stdout, kills included")
    func pythonSameVerdicts() throws {
        try Self.compare(adapter: "python3 '\(Paths.root.path)/Examples/adapters/python/adapter.py'", filters: Self.selection)
    }

    @Test("the JavaScript example (axios, loopback HTTP) gets the same verdicts over a socket, kills included",
          .enabled(if: nodeWithAxios || Python.toolsRequired, "needs node and Debian's node-axios"))
    func javascriptSameVerdicts() throws {
        try Self.compare(adapter: "env NODE_PATH=/usr/share/nodejs node '\(Paths.root.path)/Examples/adapters/javascript/adapter.js'",
                         world: ["--world", "json-v1"], filters: Self.selection)
    }

    @Test("in loopback mode over a socket, --loopback-port pins the runner's HTTP port: the welcome names it")
    func pinnedLoopbackPort() throws {
        // A port that is free now: opened, read, closed.
        let port = try AdapterListener(host: "127.0.0.1", port: 0).port
        let adapter = "python3 '\(Paths.root.path)/Examples/adapters/python/adapter.py' --http loopback"
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("socket-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--timeout", "60", "--case", "killed-after-storing-rotated-tokens",
                                                       "--listen", "127.0.0.1:0", "--launch", "python3 '\(Self.bridge)' 127.0.0.1:{port} \(adapter)",
                                                       "--loopback-port", String(port), "--report", "json=\(report)"], console: console)
        #expect(code == .success, "\(console.stdout)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("http://127.0.0.1:\(port)"), "the welcome's baseURL names the pinned port")
    }

    @Test("AdapterKit's socket host serves a client from inside the process, as an app would: the reference passes, kills included")
    func adapterKitHostsInProcess() throws {
        // The "app": a thread that connects, serves one client instance until the runner closes the connection, and
        // connects again for the next one (what a relaunch does), until the run is over.
        let port = try AdapterListener(host: "127.0.0.1", port: 0).port
        let running = Locked(true)
        let served = Locked(0)
        let app = Thread {
            while running.withLock({ $0 }) {
                do {
                    try AdapterSocketHost.serve(host: "127.0.0.1", port: port, make: { ReferenceClientAdapter() })
                    served.withLock { $0 += 1 }
                } catch {
                    usleep(20_000)  // the runner is not listening yet
                }
            }
        }
        app.start()
        defer { running.withLock { $0 = false } }
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--timeout", "30", "-k", "kill",
                                                       "--listen", "127.0.0.1:\(port)", "--launch", "true"], console: console)
        #expect(code == .success, "\(console.stdout)")
        #expect(console.stdout.contains("every MUST requirement passed"))
        #expect(served.withLock { $0 } > 10, "each case and each kill ended one instance")
    }

    @Test("a kill command runs at every kill: it is what ends the client on a device")
    func killCommandRuns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("socket-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("kills").path
        let adapter = "python3 '\(Paths.root.path)/Examples/adapters/python/adapter.py' --no-fork"
        let result = try Self.verdicts(["--listen", "127.0.0.1:0", "--launch", "python3 '\(Self.bridge)' 127.0.0.1:{port} \(adapter)",
                                        "--kill", "echo killed {port} >> '\(log)'"], filters: ["killed-after-storing-rotated-tokens"])
        #expect(!result.cases.isEmpty && result.cases.values.allSatisfy { $0 == "pass" }, "\(result.cases)")
        let kills = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(!kills.isEmpty)
        #expect(kills.allSatisfy { $0.hasPrefix("killed ") && UInt16($0.dropFirst("killed ".count)) != nil }, "the port is filled in: \(kills)")
    }

    @Test("a launch command whose client never connects is the adapter not starting: exit 3, with what was waited for")
    func noClientConnects() {
        let console = BufferConsole()
        let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs, "--timeout", "1", "--listen", "127.0.0.1:0",
                                                       "--launch", "echo starting the app >&2"], console: console)
        #expect(code == .adapterNotStarted)
        #expect(console.stdout.contains("no client connected to 127.0.0.1:"), "\(console.stdout)")
    }

    @Test("--listen is refused beside --adapter, without --launch, with a bad address, and with --jobs above 1")
    func usageErrors() {
        for (arguments, message) in [
            (["--listen", "127.0.0.1:7000", "--launch", "x", "--adapter", "y"], "--listen and --adapter choose the client two ways"),
            (["--listen", "127.0.0.1:7000"], "--listen needs --launch COMMAND"),
            (["--listen", "7000", "--launch", "x"], "--listen takes HOST:PORT, such as 127.0.0.1:7000, not '7000'"),
            (["--listen", "127.0.0.1:7000", "--launch", "x", "--jobs", "2"], "--listen plays one client at a time: --jobs must be 1"),
            (["--launch", "x"], "--launch applies to a client that connects over TCP"),
        ] {
            let console = BufferConsole()
            let code = SessionConformance.main(arguments: ["run", "--spec-root", Paths.specs] + arguments, console: console)
            #expect(code == .specOrUsageError, "\(arguments)")
            #expect(console.stderr.contains("error: " + message), "\(console.stderr)")
        }
    }
}
