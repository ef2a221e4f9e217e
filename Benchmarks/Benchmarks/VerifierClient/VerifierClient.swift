import Benchmark
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import ServiceLifecycle
import SiteCore
import SiteHTTP
import SiteSQL
import SiteSQLite
import SmokeRun
import Synchronization

/// The databases `benchmarkStore` opened: held open until the process ends (SQLiteNIO asserts,
/// in a debug build, that no connection is dropped unclosed).
private let openDatabases = Mutex<[SQLiteVerifierDatabase]>([])

/// A new SQLite store holding `users`, in the temporary directory, open for the rest of the
/// benchmark process.
func benchmarkStore(users: [UserRecord]) async throws -> SQLVerifierStore {
    var logger = Logger(label: "bench-store")
    logger.logLevel = .error
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-\(UUID())/verifier.sqlite3").path
    let database = try await SQLiteVerifierDatabase.open(path: path, busyTimeout: .seconds(5), logger: logger)
    try await SiteMigrations.apply(on: database, location: database.path)
    _ = try await SQLUserDirectory(database: database, location: database.path, configKey: "server.sqlite.path").importRecords { _ in users }
    openDatabases.withLock { $0.append(database) }
    return SQLVerifierStore(database: database, instance: "bench")
}

/// The reference verifier serving on 127.0.0.1 (a free port) for the rest of the benchmark
/// process, signed with a fresh secret, on its SQLite store.
struct LoopbackVerifier: Sendable {
    let port: Int
    let secret: WebhookSecret

    static func start(users: [UserRecord]) async throws -> LoopbackVerifier {
        let secret = WebhookSecret.generate()
        let reference = ReferenceVerifier(settings: .init(secret: secret), store: try await benchmarkStore(users: users))
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = VerifierServer.application(verifier: reference, host: "127.0.0.1", port: 0, logger: logger) {
            continuation.yield($0)
        }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        return LoopbackVerifier(port: await iterator.next()!, secret: secret)
    }
}

/// Latency the HTTP verifier client adds on loopback: one signed `verify()` round trip
/// against the reference server (one user, PBKDF2 at 1,000 iterations so the server's
/// hash costs little), with connection reuse.
actor LoopbackServer {
    static let shared = LoopbackServer()
    private var server: LoopbackVerifier?

    func start() async throws -> LoopbackVerifier {
        if let server { return server }
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        let started = try await LoopbackVerifier.start(users: [UserRecord(name: "bench", pinHash: hash)])
        server = started
        return started
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], warmupIterations: 50, maxDuration: .seconds(10), maxIterations: 2_000)

    Benchmark("HTTPVerifier.verify, signed, loopback, reference server") { benchmark in
        let server = try await LoopbackServer.shared.start()
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        let verifier = try HTTPVerifier(
            settings: .init(url: "http://127.0.0.1:\(server.port)/verify", secret: server.secret), logger: logger)
        _ = await verifier.verify(VerificationAttempt(terminalID: "bench", kind: .pin, value: SecretDigits(ascii: "4826")!))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let outcome = await verifier.verify(VerificationAttempt(terminalID: "bench", kind: .pin, value: SecretDigits(ascii: "4826")!))
            blackHole(outcome)
        }
        benchmark.stopMeasurement()
        await verifier.shutdown()
    }

    Benchmark("Reference decision only (no HTTP), same user and hash") { benchmark in
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        let reference = ReferenceVerifier(settings: .init(secret: nil), store: try await benchmarkStore(users: [UserRecord(name: "bench", pinHash: hash)]))
        let body = Array("{\"terminal_id\":\"bench\",\"kind\":\"pin\",\"value\":\"4826\",\"attempt_id\":\"a\",\"entered_at\":\"2026-11-20T10:00:00Z\"}".utf8)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await reference.handle(.init(contentType: "application/json", webhookID: nil, webhookTimestamp: nil, webhookSignature: nil, body: body)))
        }
        benchmark.stopMeasurement()
    }
    SmokeRun.clampIfAsked()
}
