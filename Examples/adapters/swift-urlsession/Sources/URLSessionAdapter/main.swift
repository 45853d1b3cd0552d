import ConformanceProtocol

// Protocol v1 in loopback mode: the client's URLSession talks real HTTP to the runner's server.
//
//   swift build --package-path Examples/adapters/swift-urlsession
//   session-conformance run --adapter Examples/adapters/swift-urlsession/.build/debug/URLSessionAdapter

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
    client: SessionClient()
)
