// swift-tools-version: 6.0
import PackageDescription

// An iOS-style session client on URLSession, certified through protocol v1 in loopback mode. It depends on the
// suite's package by path, as an app team's own adapter package would (by URL and version instead).
let package = Package(
    name: "swift-urlsession-adapter",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "session-conformance", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "URLSessionAdapter",
            dependencies: [
                .product(name: "AdapterKit", package: "session-conformance"),
                .product(name: "AdapterKitURLSession", package: "session-conformance"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
