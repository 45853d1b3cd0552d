import ConformanceProtocol

// Protocol v1 in loopback mode: the client's URLSession talks real HTTP to the runner's server.
//
//   swift build --package-path Examples/adapters/swift-urlsession
//   session-conformance run --adapter Examples/adapters/swift-urlsession/.build/debug/URLSessionAdapter

/// `--request-timeout SECONDS` (docs/porting-guide.md, Real-time waits): every request gets a deadline on the
/// runner's virtual clock, as `timeoutIntervalForRequest` (60 s by default) gives it in real time in an app.
func requestTimeoutOption(_ arguments: [String]) -> Double? {
    guard let index = arguments.firstIndex(of: "--request-timeout") else {
        if let unknown = arguments.first { Host.shared.fail("unknown argument '\(unknown)' (usage: URLSessionAdapter [--request-timeout SECONDS])") }
        return nil
    }
    guard index + 1 < arguments.count, let seconds = Double(arguments[index + 1]), seconds > 0, seconds.isFinite,
          arguments.count == 2 else {
        Host.shared.fail("usage: URLSessionAdapter [--request-timeout SECONDS], a positive number of seconds")
    }
    return seconds
}

#if os(macOS)
let platform = "macos"
#else
let platform = "linux"
#endif

Host.shared.run(
    hello: .hello(
        protocolVersion: adapterProtocolVersion,
        implementation: ImplementationInfo(name: "urlsession-refresh-actor", version: "1.0.0", language: "Swift", platform: platform),
        capabilities: ["background-refresh"],
        httpMode: .loopback
    ),
    client: SessionClient(requestTimeout: requestTimeoutOption(Array(CommandLine.arguments.dropFirst())))
)
