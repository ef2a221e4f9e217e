import Benchmark
import Foundation
import KeypadCore
import KeypadHTTPVerifier
import KeypadVerifier
import Logging

/// How many verifications per second the reference verifier decides, and how long each
/// takes, when several terminals ask at once. The server is the real `kioskpad verifier
/// serve` (a release build, `swift build -c release` in the main package, or
/// `$KIOSKPAD_BINARY`) in its own process on loopback, with 3 users at the default work
/// factor (PBKDF2-SHA256, 75,000 iterations), so every PIN costs 3 hashes; each terminal has
/// its own signed client, as on a site. (In-process it would measure package-benchmark: it
/// blocks one thread of the cooperative pool while a benchmark runs.)
final class ThroughputServer {
    let port: Int
    let secret = WebhookSecret.generate()
    private let process = Process()

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["KIOSKPAD_BINARY"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/release/kioskpad").path
    }

    /// Starts `verifier serve` with 3 users (PIN 4826 is ana's) on a free port.
    init() throws {
        guard FileManager.default.isExecutableFile(atPath: ThroughputServer.binary) else {
            fatalError("no kioskpad at \(ThroughputServer.binary): run `swift build -c release` in the main package, or set KIOSKPAD_BINARY")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try secret.text.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        let users = try ["ana", "ben", "cai"].enumerated().map { index, name in
            UsersFile.line(name: name, hash: try PINHash.make(pin: SecretDigits(ascii: "48\(26 + index)")!)) + "\n"
        }.joined()
        try users.write(to: directory.appendingPathComponent("users"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("verifier.yaml")
        try "server:\n  listen: 127.0.0.1:0\n  users_file: users\n  state_dir: state\n  secret_file: secret\n"
            .write(to: config, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: ThroughputServer.binary)
        process.arguments = ["verifier", "serve", "--config", config.path, "--log-level", "error"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            process.terminate()
            fatalError("verifier serve did not start: \(line)")
        }
        self.port = port
    }

    /// One client per terminal.
    func clients(_ count: Int) throws -> [HTTPVerifier] {
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        return try (0..<count).map { _ in
            try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: .seconds(30), secret: secret), logger: logger)
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Per-request latency of one verification, in microseconds.
let requestLatency = BenchmarkMetric.custom("request latency (us)", polarity: .prefersSmaller, useScalingFactor: false)

/// Each iteration: every terminal sends one verification at the same moment; the batch
/// ends when all are answered. Records each request's latency.
func batches(_ benchmark: Benchmark, terminals: Int) async throws {
    let server = try ThroughputServer()
    defer { server.stop() }
    let clients = try server.clients(terminals)
    let pin: @Sendable () -> SecretDigits = { SecretDigits(ascii: "4826")! }
    for (index, client) in clients.enumerated() { // warm the connections
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
}
