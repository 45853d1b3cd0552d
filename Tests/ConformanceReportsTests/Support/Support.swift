import ConformanceProtocol
import ConformanceReports
import ConformanceRunner
import Foundation
import JSONCore
import ReferenceAdapter
import SessionConformanceCommands
import SpecModel
import POSIXSync
import Testing

/// Paths inside the package, found from this file so tests do not depend on the working directory.
enum Paths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let specs = root.appendingPathComponent("Specs").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let junitSchema = fixtures.appendingPathComponent("junit-10.xsd").path
    static let reportSchema = root.appendingPathComponent("docs/report.schema.json").path
    static let validator = root.appendingPathComponent("Specs/schema/validate_schema.py").path
    static let reports = root.appendingPathComponent("Reports")

    /// A fresh temporary folder, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The reference client with defects switched on, to produce real failing, erroring and skipped cases.
final class DefectiveReference: InProcessClient, @unchecked Sendable {
    struct Defects: Sendable {
        /// Logs the new access token after each successful refresh (breaks LOG-NO-TOKEN-VALUES).
        var logsRefreshedToken = false
        /// Stops answering anything once the app requests this resource (the case errors: the client hung).
        var hangsOnResource: String?
        /// Declares these capabilities instead of the reference's.
        var capabilities: [String]?
    }

    private let inner = ReferenceClientAdapter()
    private let defects: Defects
    private var refreshEffects: Set<String> = []
    private var hung = false

    init(_ defects: Defects) { self.defects = defects }

    func start() -> [AdapterMessage] {
        // Through JSON, so the defect does not depend on the shape of the hello case.
        inner.start().map { message in
            guard let declared = defects.capabilities, message.json["type"]?.string == "hello",
                  var object = message.json.object else { return message }
            object["capabilities"] = .array(declared.map(JSONValue.string))
            if !declared.contains("offline-browsing") { object["offlinePolicy"] = nil }
            return (try? AdapterMessage(json: .object(object))) ?? message
        }
    }

    func handle(_ message: RunnerMessage) -> [AdapterMessage] {
        if hung { return [] }
        if case .command(let command) = message, command.kind == .request, let resource = defects.hangsOnResource,
           command.resource == resource {
            hung = true
            return []
        }
        var extra: [AdapterMessage] = []
        if defects.logsRefreshedToken, case .reply(let id, .response(let response)) = message, refreshEffects.contains(id),
           response.status == 200, let token = response.body["access_token"]?.string {
            extra.append(.log(level: "debug", message: "refreshed; new access token \(token)"))
        }
        let out = inner.handle(message)
        for sent in out {
            if case .http(let id, _, let request) = sent, request.path == "/auth/refresh" { refreshEffects.insert(id) }
        }
        return extra + out
    }
}

/// Runs the suite in-process and builds its report.
enum Runs {
    static func bundle() throws -> SpecBundle {
        let lint = SpecLinter.lint(paths: [Paths.specs], specRoot: Paths.specs)
        try #require(lint.errorCount == 0, "Specs/ must lint clean:\n\(lint.rendered())")
        return lint.bundle
    }

    static let referenceLauncher = InProcessLauncher(description: "SessionKit (in-process)") { ReferenceClientAdapter() }

    /// Token-logging, hanging on `slow`, without background refresh.
    static let defectiveLauncher = InProcessLauncher(description: "defective reference (in-process)") {
        DefectiveReference(.init(logsRefreshedToken: true, hangsOnResource: "slow", capabilities: ["offline-browsing"]))
    }

    static func report(_ launcher: any AdapterLauncher, options: RunOptions = RunOptions(seed: 1), shard: Shard? = nil,
                       expected: ExpectedFailures? = nil, strict: Bool = true,
                       traceLimit: Int = ReportContext.defaultTraceLimit) throws -> (result: RunResult, report: ComplianceReport) {
        let runner = SuiteRunner(bundle: try bundle(), launcher: launcher)
        let run = ReportingRun(runner: runner, options: options, shard: shard, suiteVersion: SessionConformance.version,
                               specRoot: Paths.specs, command: "session-conformance run", expectedFailures: expected,
                               strictExpectedFailures: strict, traceLimit: traceLimit)
        return try run.execute()
    }

    /// Reports of the reference and the defective client, made once for all the tests that only read them.
    static let shared: (reference: ComplianceReport, defective: ComplianceReport, defectiveResult: RunResult) = {
        do {
            let reference = try report(referenceLauncher).report
            let defective = try report(defectiveLauncher)
            return (reference, defective.report, defective.result)
        } catch {
            fatalError("the shared runs failed: \(error)")
        }
    }()

    static func expectedFailures(_ yaml: String) throws -> ExpectedFailures {
        try ExpectedFailures.parse(bytes: Array(yaml.utf8), file: "expected.yaml", bundle: try bundle())
    }
}

/// Runs a program and captures its output.
struct Program {
    let status: Int32
    let stdout: String
    let stderr: String

    static func available(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) throws -> Program {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Files, not pipes: a chatty program (chromium) cannot block on a full pipe.
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try out.close()
        try err.close()
        return Program(status: process.terminationStatus,
                       stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// Collects what a command prints.
final class BufferConsole: Console {
    private let buffers = Locked<(out: String, err: String)>(("", ""))

    func out(_ text: String) { buffers.withLock { $0.out += text } }
    func err(_ text: String) { buffers.withLock { $0.err += text } }
    var isTerminal: Bool { false }

    var stdout: String { buffers.withLock { $0.out } }
    var stderr: String { buffers.withLock { $0.err } }
}

func cli(_ arguments: String...) -> (code: ExitCode, console: BufferConsole) {
    let console = BufferConsole()
    let code = SessionConformance.main(arguments: arguments, console: console)
    return (code, console)
}

extension String {
    func write(to url: URL) throws { try write(to: url, atomically: true, encoding: .utf8) }
}
