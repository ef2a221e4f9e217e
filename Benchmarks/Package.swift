// swift-tools-version: 6.1
// Benchmarks live in their own package so the main build and tests do not pay for them.
//   cd Benchmarks && swift package benchmark
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
    .product(name: "DoorVerifierClient", package: "KioskPad"),
    .product(name: "KioskPadAccess", package: "KioskPad"),
    .product(name: "KioskPadCore", package: "KioskPad"),
    .product(name: "SiteCore", package: "KioskPad"),
    .product(name: "SiteHTTP", package: "KioskPad"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "KioskPadBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "KioskPad", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // CI runs each benchmark once (KIOSKPAD_BENCHMARK_SMOKE=1), so none can rot unnoticed.
        .target(name: "SmokeRun", dependencies: [.product(name: "Benchmark", package: "benchmark")], path: "Benchmarks/SmokeRun"),
        .executableTarget(
            name: "KeypadPipeline",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "KioskPadCore", package: "KioskPad"),
                .product(name: "KeypadHAL", package: "KioskPad"),
                .product(name: "KeypadDisplay", package: "KioskPad"),
                .product(name: "KeypadTestSupport", package: "KioskPad"),
            ],
            path: "Benchmarks/KeypadPipeline",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "OSDPReaders",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "DoorOSDP", package: "KioskPad"),
                .product(name: "KeypadHAL", package: "KioskPad"),
                .product(name: "KioskPadCore", package: "KioskPad"),
                .product(name: "KeypadTestSupport", package: "KioskPad"), .product(name: "TestPeers", package: "KioskPad"),
            ],
            path: "Benchmarks/OSDPReaders",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "VerifierClient",
            dependencies: benchmarkDependencies + [.product(name: "SiteSQLite", package: "KioskPad"), .product(name: "SiteSQL", package: "KioskPad")],
            path: "Benchmarks/VerifierClient",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "JournalForwarding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "DoorServices", package: "KioskPad"),
                .product(name: "DoorVerifierClient", package: "KioskPad"),
                .product(name: "KeypadTestSupport", package: "KioskPad"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/JournalForwarding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PairingExchange",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "KioskPadAccess", package: "KioskPad"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/PairingExchange",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "AccessRules",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "KioskPadAccess", package: "KioskPad"),
                .product(name: "SiteCore", package: "KioskPad"),
            ],
            path: "Benchmarks/AccessRules",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The site console's pages over 10,000 users and 1,000,000 door events (SQLite).
        .executableTarget(
            name: "ConsolePages",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "SiteConsole", package: "KioskPad"),
                .product(name: "KioskPadCore", package: "KioskPad"),
                .product(name: "SiteCore", package: "KioskPad"),
                .product(name: "SiteSQLite", package: "KioskPad"), .product(name: "SiteSQL", package: "KioskPad"),
                .product(name: "KioskPadAccess", package: "KioskPad"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ConsolePages",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A door's credential replica: choosing, encoding, signing; checking and decoding.
        .executableTarget(
            name: "CredentialReplicas",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "SiteCore", package: "KioskPad"),
                .product(name: "KioskPadAccess", package: "KioskPad"),
                .product(name: "DoorOfflineReplica", package: "KioskPad"),
                .product(name: "KioskPadCore", package: "KioskPad"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/CredentialReplicas",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A grant's way to Home Assistant: bridge, libmosquitto, a mosquitto broker on loopback
        // (Debian's mosquitto, started by the benchmark) and a subscriber.
        .executableTarget(
            name: "HomeAssistantEvents",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SmokeRun",
                .product(name: "DoorHomeAssistant", package: "KioskPad"),
                .product(name: "KioskPadCore", package: "KioskPad"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/HomeAssistantEvents",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The PostgreSQL benchmarks need Debian's postgresql (server programs): each starts its own.
        .executableTarget(
            name: "VerifierThroughput",
            dependencies: benchmarkDependencies + [
                .product(name: "KeypadTestSupport", package: "KioskPad"), .product(name: "TestPeers", package: "KioskPad"),
                .product(name: "SiteSQLite", package: "KioskPad"), .product(name: "SiteSQL", package: "KioskPad"),
            ],
            path: "Benchmarks/VerifierThroughput",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
