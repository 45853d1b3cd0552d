// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "session-conformance",
    products: [
        .executable(name: "session-conformance", targets: ["SessionConformanceCLI"]),
        .library(name: "SpecModel", targets: ["SpecModel"]),
        .library(name: "SessionKit", targets: ["SessionKit"]),
    ],
    targets: [
        // libyaml, found through pkg-config; imported internally by SpecYAML only.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // YAML text -> located node tree, and compiler-style diagnostics.
        .target(name: "SpecYAML", dependencies: ["CYAML"]),
        // Node tree -> requirements, state machine and cases; cross-checks (lint).
        .target(name: "SpecModel", dependencies: ["SpecYAML"]),
        // The commands behind the CLI, as a library so tests can run them.
        .target(name: "SessionConformanceCommands", dependencies: ["SpecModel", "SpecYAML"]),
        .executableTarget(name: "SessionConformanceCLI", dependencies: ["SessionConformanceCommands"]),
        // The reference client: the session lifecycle with every outward effect injected.
        .target(name: "SessionKit"),
        // A deterministic world for SessionKit's tests and the runner: manual clock, scripted transport, memory storage.
        .target(name: "SessionKitTesting", dependencies: ["SessionKit"]),

        .testTarget(name: "SpecYAMLTests", dependencies: ["SpecYAML"]),
        .testTarget(
            name: "SpecModelTests",
            dependencies: ["SpecModel", "SpecYAML"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SessionConformanceCommandsTests", dependencies: ["SessionConformanceCommands"]),
        .testTarget(name: "SessionKitTests", dependencies: ["SessionKit", "SessionKitTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
