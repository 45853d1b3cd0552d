// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "session-conformance",
    // macOS 15 and iOS 18: task executor preference (SE-0417), on which AdapterKit and SessionKit keep a client on
    // one executor, needs them; Synchronization's Mutex and Atomic are still not used (POSIXSync.Locked instead).
    // scripts/check-portability.py holds the code to these, on Linux, in .ci/run.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "session-conformance", targets: ["SessionConformanceCLI"]),
        .executable(name: "session-conformance-reference-adapter", targets: ["ReferenceAdapterCLI"]),
        .library(name: "SpecModel", targets: ["SpecModel"]),
        .library(name: "SessionKit", targets: ["SessionKit"]),
        // For Swift adapters in their own package: host a client behind protocol v1 (docs/porting-guide.md).
        .library(name: "AdapterKit", targets: ["AdapterKit"]),
        .library(name: "AdapterKitURLSession", targets: ["AdapterKitURLSession"]),
        .library(name: "ConformanceProtocol", targets: ["ConformanceProtocol"]),
    ],
    targets: [
        // libyaml, found through pkg-config; imported internally by SpecYAML only.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // JSON values: a strict parser and a deterministic writer.
        .target(name: "JSONCore"),
        // YAML text -> located node tree, and compiler-style diagnostics.
        .target(name: "SpecYAML", dependencies: ["CYAML", "JSONCore"]),
        // Node tree -> requirements, state machine and cases; cross-checks (lint).
        // World profiles (`kind: world`) decode into SimulatedWorld's `WorldProfile`.
        .target(name: "SpecModel", dependencies: ["SpecYAML", "SimulatedWorld"]),
        // The commands behind the CLI, as a library so tests can run them.
        .target(
            name: "SessionConformanceCommands",
            dependencies: ["SpecModel", "SpecYAML", "ConformanceRunner", "ConformanceProtocol", "ReferenceAdapter", "ConformanceReports", "Mutants", "POSIXSync"]
        ),
        // Compliance reports: the report model, its writers (JSON, JUnit XML, Markdown, HTML, TAP), diff and merge.
        .target(
            name: "ConformanceReports",
            dependencies: ["ConformanceRunner", "ConformanceProtocol", "SpecModel", "SpecYAML", "JSONCore", "SimulatedWorld"]
        ),
        .executableTarget(name: "SessionConformanceCLI", dependencies: ["SessionConformanceCommands"]),
        // Adapter protocol v1: message types, JSON values, the JSON-lines framer.
        .target(name: "ConformanceProtocol", dependencies: ["JSONCore"]),
        // A small, bounded HTTP/1.1 server on 127.0.0.1 (POSIX sockets, one poll thread) for loopback mode.
        .target(name: "LoopbackHTTP", dependencies: ["POSIXSync"]),
        // A mutex with a condition variable and monotonic deadlines, for the threads that wait on pipes and sockets.
        .target(name: "POSIXSync"),
        // Adapter processes: spawn, line I/O with timeouts, stderr capture, SIGKILL.
        .target(name: "AdapterProcess", dependencies: ["ConformanceProtocol", "POSIXSync"]),
        // The runner: the simulated world, connections to the client, the trace, oracles and verdicts.
        .target(
            name: "ConformanceRunner",
            dependencies: ["ConformanceProtocol", "AdapterProcess", "SpecModel", "JSONCore", "LoopbackHTTP", "SimulatedWorld", "POSIXSync"]

        ),
        // The reference client: the session lifecycle with every outward effect injected.
        .target(name: "SessionKit", dependencies: ["POSIXSync"]),
        // Hosts a client written against async effects behind protocol v1, deterministically.
        .target(name: "AdapterKit", dependencies: ["ConformanceProtocol"]),
        .target(name: "AdapterKitURLSession", dependencies: ["AdapterKit"]),
        // SessionKit behind adapter protocol v1: in-process for the runner, or as its own process.
        .target(name: "ReferenceAdapter", dependencies: ["SessionKit", "AdapterKit", "ConformanceProtocol", "JSONCore"]),
        .executableTarget(name: "ReferenceAdapterCLI", dependencies: ["ReferenceAdapter", "AdapterKit", "Mutants"]),
        // Faithful ports of the naive iOS, Android and Flutter code of Specs/sources/003, as hosted clients.
        .target(name: "KnownBadClients", dependencies: ["AdapterKit", "ConformanceProtocol", "JSONCore"]),
        // The known-bad variants by name: SessionKit with one defect each, and the 003 ports (docs/known-bad.md).
        .target(name: "Mutants", dependencies: ["KnownBadClients", "ReferenceAdapter", "SessionKit", "AdapterKit", "ConformanceProtocol"]),
        // The simulated servers, once for the runner and SessionKit's tests: token rules (RFC 6749, RFC 7009),
        // resources (RFC 6750), seeded randomness.
        .target(name: "SimulatedWorld", dependencies: ["ConformanceProtocol", "JSONCore"]),
        // A deterministic world for SessionKit's tests: manual clock, scripted transport, memory storage, and
        // the SimulatedWorld servers behind SessionKit's HTTP types.
        .target(name: "SessionKitTesting", dependencies: ["SessionKit", "SimulatedWorld", "ConformanceProtocol", "JSONCore", "POSIXSync"]),

        // Test support: runs python3 for the tests that check files with python jsonschema.
        .target(name: "PythonRunner", path: "Tests/Support/PythonRunner"),
        // Test support (C): when the test process is killed or `swift test` goes away, every process the tests
        // started dies with it (Linux). Linked into the one test binary every test target shares.
        .target(name: "TestProcessGuard", path: "Tests/Support/TestProcessGuard"),
        // Test support: the `.long` trait, for the sweeps that run only with SESSION_CONFORMANCE_LONG_TESTS=1.
        .target(name: "LongTests", path: "Tests/Support/LongTests"),
        // Test support: whether a process is running (/proc on Linux, ps(1) elsewhere).
        .target(name: "ProcessProbes", path: "Tests/Support/ProcessProbes"),

        .testTarget(name: "SpecYAMLTests", dependencies: ["SpecYAML", "LongTests"]),
        .testTarget(
            name: "SpecModelTests",
            dependencies: ["SpecModel", "SpecYAML", "SimulatedWorld", "JSONCore", "PythonRunner"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SessionConformanceCommandsTests",
                    dependencies: ["SessionConformanceCommands", "ConformanceRunner", "ConformanceReports", "AdapterProcess",
                                   "TestProcessGuard", "LongTests", "JSONCore", "POSIXSync", "PythonRunner", "ProcessProbes",
                                   "AdapterKit", "ReferenceAdapter"]),
        .testTarget(name: "SessionKitTests", dependencies: ["SessionKit", "SessionKitTesting", "SimulatedWorld"]),
        .testTarget(name: "AdapterKitTests", dependencies: ["AdapterKit", "AdapterKitURLSession", "LoopbackHTTP"]),
        .testTarget(name: "ConformanceProtocolTests", dependencies: ["ConformanceProtocol", "JSONCore", "PythonRunner"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
        // Mutation fuzzing of Specs/: a bounded run in `swift test`, longer with SESSION_CONFORMANCE_FUZZ_*.
        .testTarget(name: "SpecFuzzTests", dependencies: ["SpecModel", "SpecYAML", "ConformanceRunner", "ReferenceAdapter", "LongTests"]),
        .testTarget(
            name: "ReferenceConformanceTests",
            dependencies: ["ConformanceRunner", "ReferenceAdapter", "ConformanceProtocol", "SpecModel", "Mutants", "LongTests"]
        ),
        // The kill matrix: every known-bad variant fails exactly its documented requirements; the reference none.
        .testTarget(name: "MutantKillMatrixTests",
                    dependencies: ["Mutants", "ConformanceRunner", "ConformanceProtocol", "SpecModel", "LongTests", "POSIXSync"]),
        // Fixtures/ holds adapters written for the tests (run as processes, not bundled).
        .testTarget(name: "ConformanceRunnerTests", dependencies: ["ConformanceRunner", "ConformanceProtocol", "SpecModel", "JSONCore", "SimulatedWorld", "LoopbackHTTP",
                                                               "AdapterProcess", "POSIXSync"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "SimulatedWorldTests", dependencies: ["SimulatedWorld", "ConformanceProtocol", "JSONCore"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        // Fixtures/ holds the JUnit XSD the JUnit writer is validated against (read from disk, not bundled).
        .testTarget(
            name: "ConformanceReportsTests",
            dependencies: ["ConformanceReports", "ConformanceRunner", "ConformanceProtocol", "ReferenceAdapter",
                           "SessionConformanceCommands", "SpecModel", "JSONCore", "SimulatedWorld", "LongTests", "POSIXSync"],
            exclude: ["Fixtures"]
        ),
        // The fake adapters in Fixtures/ are run as processes from their source folder, not bundled.
        .testTarget(name: "AdapterProcessTests", dependencies: ["AdapterProcess", "ProcessProbes"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
