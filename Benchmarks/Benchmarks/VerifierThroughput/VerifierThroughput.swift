import Benchmark
import Foundation
import KeypadCore
import KeypadHTTPVerifier
import KeypadVerifier
import BenchmarkSupport
import Logging

/// How many verifications per second the reference verifier decides, and how long each
/// takes, when several terminals ask at once. The server runs on loopback with 3 users at
/// the default work factor (PBKDF2-SHA256, 75,000 iterations), so every PIN costs 3 hashes;
/// each terminal has its own signed client, as on a site.
actor ThroughputServer {
    static let shared = ThroughputServer()
    private var server: LoopbackVerifier?

    func start() async throws -> LoopbackVerifier {
        if let server { return server }
        let users = try ["ana", "ben", "cai"].enumerated().map { index, name in
            UserRecord(name: name, pinHash: try PINHash.make(pin: SecretDigits(ascii: "48\(26 + index)")!))
        }
        let started = try await LoopbackVerifier.start(users: users)
        server = started
        return started
    }

    /// One client per terminal, each asking for `terminal-N` with the first user's PIN.
    func clients(_ count: Int) async throws -> [HTTPVerifier] {
        let server = try await start()
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        return try (0..<count).map { _ in
            try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", deadline: .seconds(30), secret: server.secret), logger: logger)
        }
    }
}

/// Per-request latency of one verification, in microseconds.
let requestLatency = BenchmarkMetric.custom("request latency (us)", polarity: .prefersSmaller, useScalingFactor: false)

/// Each iteration: every terminal sends one verification at the same moment; the batch
/// ends when all are answered. Records each request's latency.
func batches(_ benchmark: Benchmark, terminals: Int) async throws {
    let clients = try await ThroughputServer.shared.clients(terminals)
    let pin = { SecretDigits(ascii: "4826")! }
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
            precondition(outcome == .granted(message: nil, unlockSeconds: nil), "every verification must be granted: \(outcome)")
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
