import AdapterKit
import Foundation

// Protocol v1 in loopback mode, hosted by AdapterKit: the client's URLSession talks real HTTP to the runner's server.
//
//   swift build --package-path Examples/adapters/swift-urlsession
//   session-conformance run --world json-v1 --adapter Examples/adapters/swift-urlsession/.build/debug/URLSessionAdapter

/// `--request-timeout SECONDS` (docs/porting-guide.md, Real-time waits): every request gets a deadline on the
/// runner's virtual clock, as `timeoutIntervalForRequest` (60 s by default) gives it in real time in an app.
func requestTimeoutOption(_ arguments: [String]) -> Double? {
    func usage(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("adapter: \(reason) (usage: URLSessionAdapter [--request-timeout SECONDS])\n".utf8))
        exit(2)
    }
    guard let index = arguments.firstIndex(of: "--request-timeout") else {
        if let unknown = arguments.first { usage("unknown argument '\(unknown)'") }
        return nil
    }
    guard index + 1 < arguments.count, let seconds = Double(arguments[index + 1]), seconds > 0, seconds.isFinite,
          arguments.count == 2 else {
        usage("--request-timeout takes a positive number of seconds")
    }
    return seconds
}

/// The glue: AdapterKit creates it at `welcome`; it hands each command to the session client.
final class URLSessionAdapter: HostedClient {
    static let requestTimeout = requestTimeoutOption(Array(CommandLine.arguments.dropFirst()))
    private let client: SessionClient

    init(effects: ClientEffects) {
        // Loopback mode: AdapterKit stops at a welcome without a base URL, so `loopback` is set here.
        client = SessionClient(effects: effects, baseURL: effects.loopback!.baseURL, requestTimeout: Self.requestTimeout)
    }

    func perform(_ command: AppCommand) async -> CommandResult {
        await client.perform(command)
    }
}

#if os(macOS)
let platform = "macos"
#else
let platform = "linux"
#endif

_ = URLSessionAdapter.requestTimeout // a usage error before the hello, not at the welcome
AdapterProcessMain.run(HostedClientAdapter<URLSessionAdapter>(
    identity: HostedClientIdentity(
        implementation: ImplementationInfo(name: "urlsession-refresh-actor", version: "1.0.0", language: "Swift", platform: platform),
        capabilities: ["background-refresh"],
        http: .loopback),
    executor: clientExecutor))
