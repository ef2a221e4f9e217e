import Benchmark
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import SmokeRun

/// How many verifications per second the reference verifier decides, and how long each
/// takes, when several terminals ask at once. The server is the real `kioskpad verifier
/// serve` (a release build, `swift build -c release` in the main package, or
/// `$KIOSKPAD_BINARY`) in its own process on loopback, on its SQLite database, with 3 users
/// at the default work factor (PBKDF2-SHA256, 75,000 iterations), so every PIN costs 3
/// hashes; each terminal has its own signed client, as on a site. (In-process it would
/// measure package-benchmark: it blocks one thread of the cooperative pool while a
/// benchmark runs.) `$KIOSKPAD_FILESTORE_BINARY`, a release build from before the file store
/// was retired (commit 541604f), runs the same load on its users file for comparison.
final class ThroughputServer {
    let port: Int
    let secret = WebhookSecret.generate()
    private let process = Process()

    /// Where the server keeps its users.
    enum Store {
        /// `server.store: sqlite` (users imported from the users file).
        case sqlite
        /// The users file and state files of kioskpad before SQLite, run by `binary`.
        case fileStore(binary: String)
    }

    /// The file-store build to compare with, if `$KIOSKPAD_FILESTORE_BINARY` names one.
    static var fileStoreBinary: String? {
        ProcessInfo.processInfo.environment["KIOSKPAD_FILESTORE_BINARY"].flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
    }

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["KIOSKPAD_BINARY"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/release/kioskpad").path
    }

    /// Starts `verifier serve` with 3 users (PIN 4826 is ana's) on a free port. With a
    /// `lookupUsers` count instead, the server has a lookup key and that many users, every
    /// line tagged: ana at the default work factor, the others (never her PIN) at 1,000
    /// iterations, so the file is made in seconds; with tags only ana's line is hashed.
    init(lookupUsers: Int? = nil, store: Store = .sqlite, binary chosen: String = ThroughputServer.binary) throws {
        guard FileManager.default.isExecutableFile(atPath: chosen) else {
            fatalError("no kioskpad at \(chosen): run `swift build -c release` in the main package, or set KIOSKPAD_BINARY")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try secret.text.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        var users: String
        var settings = "server:\n  listen: 127.0.0.1:0\n  state_dir: state\n  secret_file: secret\n"
        var binary = chosen
        if case .fileStore(let old) = store {
            settings += "  users_file: users\n"
            binary = old
        }
        if let count = lookupUsers {
            let keyText = WebhookSecret.generate().text
            try keyText.write(to: directory.appendingPathComponent("lookup.key"), atomically: true, encoding: .utf8)
            settings += "  lookup_key_file: lookup.key\n"
            let key = try LookupKey(text: keyText)
            let ana = SecretDigits(ascii: "4826")!
            users = UsersFile.line(name: "ana", hash: try PINHash.make(pin: ana)) + ":tag=" + key.tag(ana, kind: .pin) + "\n"
            for index in 1..<count {
                let pin = SecretDigits(ascii: String(format: "%04d", (4827 + index) % 10_000 == 4826 ? 0 : (4827 + index) % 10_000))!
                users += UsersFile.line(name: "user\(index)", hash: try PINHash.make(pin: pin, iterations: 1_000)) + ":tag=" + key.tag(pin, kind: .pin) + "\n"
            }
        } else {
            users = try ["ana", "ben", "cai"].enumerated().map { index, name in
                UsersFile.line(name: name, hash: try PINHash.make(pin: SecretDigits(ascii: "48\(26 + index)")!)) + "\n"
            }.joined()
        }
        try users.write(to: directory.appendingPathComponent("users"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("verifier.yaml")
        try settings.write(to: config, atomically: true, encoding: .utf8)
        if case .sqlite = store {
            try ThroughputServer.run(
                ["verifier", "import", "--users-file", directory.appendingPathComponent("users").path, "--config", config.path], binary: binary)
        }
        port = try ThroughputServer.serve(process, config: config.path, binary: binary)
    }

    /// Runs `kioskpad ARGUMENTS` to its end; stops the benchmark if it fails.
    static func run(_ arguments: [String], binary: String = ThroughputServer.binary) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fatalError("kioskpad \(arguments.joined(separator: " ")) failed") }
    }

    /// Starts `verifier serve --config CONFIG` in `process` (under `taskset -c CORE` when
    /// given) and returns the port it prints.
    static func serve(_ process: Process, config: String, core: Int? = nil, binary: String = ThroughputServer.binary) throws -> Int {
        let serve = [binary, "verifier", "serve", "--config", config, "--log-level", "error"]
        let command = core.map { ["/usr/bin/taskset", "-c", String($0)] + serve } ?? serve
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            process.terminate()
            fatalError("verifier serve did not start: \(line)")
        }
        return port
    }

    /// One client per terminal.
    func clients(_ count: Int) throws -> [HTTPVerifier] {
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        return try (0..<count).map { _ in
            try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: .seconds(30), secret: secret), logger: logger)
        }
    }

    /// The server process's id (its CPU time is read from /proc).
    var processID: Int32 { process.processIdentifier }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Per-request latency of one verification, in microseconds.
let requestLatency = BenchmarkMetric.custom("request latency (us)", polarity: .prefersSmaller, useScalingFactor: false)

/// Batches against one `verifier serve` (3 users, or `lookupUsers` tagged).
func batches(_ benchmark: Benchmark, terminals: Int, lookupUsers: Int? = nil, store: ThroughputServer.Store = .sqlite) async throws {
    let server = try ThroughputServer(lookupUsers: lookupUsers, store: store)
    defer { server.stop() }
    try await batches(benchmark, clients: try server.clients(terminals))
}

/// Each iteration: every client (one per terminal) sends one verification at the same
/// moment; the batch ends when all are answered (all must be granted to ana). Records each
/// request's latency.
func batches(_ benchmark: Benchmark, clients: [HTTPVerifier]) async throws {
    let pin: @Sendable () -> SecretDigits = { SecretDigits(ascii: "4826")! }
    for (index, client) in clients.enumerated() {  // warm the connections
        _ = await client.verify(VerificationAttempt(terminalID: "terminal-\(index)", kind: .pin, value: pin()))
    }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let latencies = await withTaskGroup(of: (AttemptOutcome, Duration).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    let outcome = await client.verify(VerificationAttempt(terminalID: "terminal-\(index)", kind: .pin, value: pin()))
                    return (outcome, clock.now - start)
                }
            }
            var all: [(AttemptOutcome, Duration)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (outcome, latency) in latencies {
            precondition(outcome == .granted(user: "ana"), "every verification must be granted to ana: \(outcome)")
            benchmark.measurement(requestLatency, Int(latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000))
        }
    }
    benchmark.stopMeasurement()
    for client in clients { await client.shutdown() }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, requestLatency], warmupIterations: 2, maxDuration: .seconds(20), maxIterations: 200)

    Benchmark("Reference verifier, 1 terminal at a time (3 users, 75k iterations)") { benchmark in
        try await batches(benchmark, terminals: 1)
    }
    Benchmark("Reference verifier, 2 terminals at once (2 cores' worth)") { benchmark in
        try await batches(benchmark, terminals: 2)
    }
    Benchmark("Reference verifier, 20 terminals at once") { benchmark in
        try await batches(benchmark, terminals: 20)
    }
    Benchmark("Reference verifier, lookup key, 10 users, 1 terminal") { benchmark in
        try await batches(benchmark, terminals: 1, lookupUsers: 10)
    }
    Benchmark("Reference verifier, lookup key, 10,000 users, 1 terminal") { benchmark in
        try await batches(benchmark, terminals: 1, lookupUsers: SmokeRun.size(10_000, smoke: 100))
    }
    Benchmark("Reference verifier, lookup key, 10,000 users, 20 terminals at once") { benchmark in
        try await batches(benchmark, terminals: 20, lookupUsers: SmokeRun.size(10_000, smoke: 100))
    }
    // The same two loads on the file store this replaced, when a build of it is given.
    if let old = ThroughputServer.fileStoreBinary {
        Benchmark("File store (before SQLite), lookup key, 10,000 users, 1 terminal") { benchmark in
            try await batches(benchmark, terminals: 1, lookupUsers: SmokeRun.size(10_000, smoke: 100), store: .fileStore(binary: old))
        }
        Benchmark("File store (before SQLite), lookup key, 10,000 users, 20 terminals at once") { benchmark in
            try await batches(benchmark, terminals: 20, lookupUsers: SmokeRun.size(10_000, smoke: 100), store: .fileStore(binary: old))
        }
    }
    userAddBenchmarks()
    codeBesidePassesBenchmarks()
    postgresBenchmarks()
    serverCPUBenchmarks()
    SmokeRun.clampIfAsked()
}
