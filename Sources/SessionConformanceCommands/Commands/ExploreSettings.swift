import ConformanceReports
import ConformanceRunner
import Foundation

extension ExploreCommand {
    /// `--strategy guided|random` (default guided).
    static func strategy(_ arguments: ParsedArguments) throws -> ExploreStrategy {
        guard let text = arguments.value("strategy") else { return .guided }
        guard let strategy = ExploreStrategy(rawValue: text) else {
            throw UsageError("--strategy takes guided or random, not '\(text)'")
        }
        return strategy
    }

    /// The options of one `explore` command line, checked.
    struct Settings {
        var options = ExploreOptions()
        var replay: ExploreRunID?
        var shrink = true
        var shrinkDir = "explore-cases"
        var specRoot: String
        var timeout = 10
        var reports: [ReportRequest] = []
        /// `--adapter '...'`, `--timeout N` and `--world X` as given, or empty.
        var adapterOptions = ""
        /// `--adapter '...'` and `--timeout N` as given, or empty.
        var clientOptions = ""
        /// The name of the world profile the runs play, when `--world` chose one: the shrink folder carries it.
        var worldName: String?
        /// The file `--world` named, when it is a file rather than one of the spec's worlds.
        var worldFile: String?
        var variant: String?
        /// `--spec-root '...'` when not the default, or empty.
        var specRootOption = ""
        /// How the executable was started.
        var program = Invocation.standard

        init(_ arguments: ParsedArguments) throws {
            func whole<T: FixedWidthInteger>(_ name: String, _ fallback: T, atLeast minimum: T) throws -> T {
                guard let text = arguments.value(name) else { return fallback }
                guard let value = T(text), value >= minimum else {
                    throw UsageError("--\(name) takes a whole number of at least \(minimum), not '\(text)'")
                }
                return value
            }
            options.seed = try whole("seed", 1, atLeast: 0)
            options.runs = try whole("runs", 1_000, atLeast: 1)
            options.jobs = try whole("jobs", 1, atLeast: 1)
            options.strategy = try ExploreCommand.strategy(arguments)
            if arguments.flags.contains("real-kills") { options.processDeathEvery = 1 }
            if arguments.flags.contains("no-pin") { options.pinWorkers = false }
            timeout = try whole("timeout", 10, atLeast: 1)
            if let text = arguments.value("time-budget") {
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw UsageError("--time-budget takes a number of seconds above 0, not '\(text)'")
                }
                options.timeBudget = seconds
            }
            if let text = arguments.value("shard") {
                guard let shard = Shard(text) else {
                    throw UsageError("--shard takes I/N with 1 <= I <= N, not '\(text)'", hint: "for example --shard 2/4")
                }
                options.shard = ExploreShard(index: shard.index, count: shard.count)
            }
            if let text = arguments.value("replay") {
                guard let run = ExploreRunID(text) else {
                    throw UsageError("--replay takes S:K (run K, from 1, of seed S), not '\(text)'", hint: "for example --replay 1:42")
                }
                replay = run
            }
            program = arguments.program
            shrink = !arguments.flags.contains("no-shrink")
            shrinkDir = arguments.value("shrink-dir") ?? shrinkDir
            var isFolder: ObjCBool = false
            if shrink, FileManager.default.fileExists(atPath: shrinkDir, isDirectory: &isFolder), !isFolder.boolValue {
                throw UsageError("--shrink-dir \(shrinkDir) is not a folder", hint: "give a folder (it is created if missing), or --no-shrink")
            }
            specRoot = try DefaultSpecRoot.chosen(arguments)
            reports = try RunCommand.reportRequests(arguments)
            variant = arguments.value("variant")
            if let adapter = arguments.value("adapter") {
                adapterOptions += " --adapter " + ShellWord.quoted(adapter)
            }
            adapterOptions += SocketOptions.reproduce(arguments)
            if arguments.value("timeout") != nil { adapterOptions += " --timeout \(timeout)" }
            clientOptions = adapterOptions
            if options.processDeathEvery == 1 { adapterOptions += " --real-kills" }
            adapterOptions += WorldArgument.reproduceOption(arguments)
            worldFile = arguments.value("world").flatMap { WorldArgument.names(file: $0) ? $0 : nil }
            let root = WorkingDirectory.relative(specRoot)
            if arguments.value("spec-root") != nil, root != "Specs" { specRootOption = " --spec-root '\(root)'" }
        }

        /// The command that replays run `run` exactly.
        func replayCommand(_ run: ExploreRunID) -> String {
            WorkingDirectory.relativizing("\(program) explore --replay \(run)" + adapterOptions
                                          + (variant.map { " --variant \($0)" } ?? "") + specRootOption)
        }

        /// The command that plays the shrunk cases: `run` for a client, `mutants` for a known-bad variant.
        /// The shrink folder carries the world the runs played (`worlds/`), so it is named, not a path.
        var reproduceBase: String {
            let folder = "'" + WorkingDirectory.relative(shrinkDir) + "'"
            let world = worldName.map { " --world " + ShellWord.word($0) } ?? ""
            if let variant { return "\(program) mutants --variant \(variant)\(world) --spec-root \(folder)" }
            return WorkingDirectory.relativizing("\(program) run" + clientOptions + world + " --spec-root \(folder)")
        }

        func reproduceCommand(caseID: String) -> String {
            reproduceBase + " --seed \(options.seed)" + (variant == nil ? " --case \(caseID)" : "")
        }
    }
}
