import Benchmark
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import SiteCore
import SiteSQL
import SiteSQLite
import SmokeRun

/// `/verify` of a wrong code, and of a PIN, beside many live visitor passes (issue 78, point 4:
/// at most 1.2 times the time beside none). The real `verifier serve` (as ``ThroughputServer``)
/// on a SQLite file whose passes were stored in process through the site's own store, each
/// with a fresh 8-digit code at the codes' work factor (10,000 iterations) and, when the site
/// has a lookup key, its tag. ana (PIN 4826, the default work factor) is the only user. Each
/// request comes from a door of its own, so no lockout ever answers in place of the hashes.
final class PassesServer {
    let port: Int
    let secret = WebhookSecret.generate()
    private let process = Process()

    init(passes: Int, lookupKey: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-passes-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try secret.text.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        var settings = "server:\n  listen: 127.0.0.1:0\n  state_dir: state\n  secret_file: secret\n"
        var key: LookupKey?
        if lookupKey {
            let text = WebhookSecret.generate().text
            try text.write(to: directory.appendingPathComponent("lookup.key"), atomically: true, encoding: .utf8)
            settings += "  lookup_key_file: lookup.key\n"
            key = try LookupKey(text: text)
        }
        let config = directory.appendingPathComponent("verifier.yaml")
        try settings.write(to: config, atomically: true, encoding: .utf8)
        let ana = SecretDigits(ascii: "4826")!
        let line =
            UsersFile.line(name: "ana", hash: try await HashingPool.shared.makeHash(ana, lane: .console))
            + (key.map { ":tag=" + $0.tag(ana, kind: .pin) } ?? "")
        try (line + "\n").write(to: directory.appendingPathComponent("users"), atomically: true, encoding: .utf8)
        try ThroughputServer.run(["verifier", "import", "--users-file", directory.appendingPathComponent("users").path, "--config", config.path])
        try await PassesServer.store(passes, lookupKey: key, in: directory.appendingPathComponent("state/verifier.sqlite3").path)
        port = try ThroughputServer.serve(process, config: config.path)
    }

    /// `count` passes for visitors of ana at `front-door`, valid for 30 days, unlimited uses.
    static func store(_ count: Int, lookupKey: LookupKey?, in path: String) async throws {
        var logger = Logger(label: "bench-passes")
        logger.logLevel = .error
        let database = try await SQLiteVerifierDatabase.open(path: path, busyTimeout: .seconds(5), logger: logger)
        let directory = SQLUserDirectory(database: database, location: path, configKey: "server.sqlite.path")
        let day = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date().addingTimeInterval(30 * 86_400))
        let until = SiteDate(parsing: String(format: "%04d-%02d-%02d", day.year ?? 2027, day.month ?? 1, day.day ?? 1))!
        let limits = VisitorPassLimits(maxDays: 90, maxLivePerHost: 1_000_000, maxLive: 1_000_000)
        for index in 0..<count {
            let code = OneTimeCode.make(length: 8)
            // On the hashing pool's threads, not the cooperative pool the benchmark runs on.
            let hash = try await HashingPool.shared.makeHash(code, iterations: OneTimeCode.hashIterations, lane: .console)
            let request = VisitorPassRequest(visitor: "visitor \(index)", host: "ana", doors: ["front-door"], validUntil: until, maxUses: nil)
            do {
                _ = try await directory.issueVisitorPass(
                    request, hash: hash, lookupTag: lookupKey?.codeTag(code), now: Date(), limits: limits, issuedBy: "bench")
            } catch is CodeTagInUse {
                continue  // the same digits drawn twice: one pass fewer, which changes nothing measured
            }
        }
        await database.close()
    }

    func client() throws -> HTTPVerifier {
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        return try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: .seconds(60), secret: secret), logger: logger)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Against one server (its passes take long to store), `requests` attempts one after another,
/// each from a door of its own; records each one's latency.
func attempts(_ benchmark: Benchmark, passes: Int, lookupKey: Bool, kind: AttemptKind, requests: Int = SmokeRun.size(60, smoke: 1)) async throws {
    let server = try await PassesServer(passes: passes, lookupKey: lookupKey)
    defer { server.stop() }
    let client = try server.client()
    let value = kind == .pin ? "4826" : "00000000"
    let expected: AttemptOutcome = kind == .pin ? .granted(user: "ana") : .denied()
    _ = await client.verify(VerificationAttempt(terminalID: "warm-up", kind: kind, value: SecretDigits(ascii: value)!))
    benchmark.startMeasurement()
    for iteration in 0..<requests {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = await client.verify(VerificationAttempt(terminalID: "door-\(iteration)", kind: kind, value: SecretDigits(ascii: value)!))
        let latency = clock.now - start
        precondition(outcome == expected, "expected \(expected), got \(outcome)")
        benchmark.measurement(requestLatency, Int(latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000))
    }
    benchmark.stopMeasurement()
    await client.shutdown()
}

func codeBesidePassesBenchmarks() {
    let many = SmokeRun.size(5_000, smoke: 20)
    let configuration: Benchmark.Configuration = .init(
        metrics: [requestLatency], warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 1)
    Benchmark("Wrong code, lookup key, no live pass", configuration: configuration) { benchmark in
        try await attempts(benchmark, passes: 0, lookupKey: true, kind: .code)
    }
    Benchmark("Wrong code, lookup key, 5,000 live passes", configuration: configuration) { benchmark in
        try await attempts(benchmark, passes: many, lookupKey: true, kind: .code)
    }
    Benchmark("PIN, lookup key, no live pass", configuration: configuration) { benchmark in
        try await attempts(benchmark, passes: 0, lookupKey: true, kind: .pin)
    }
    Benchmark("PIN, lookup key, 5,000 live passes", configuration: configuration) { benchmark in
        try await attempts(benchmark, passes: many, lookupKey: true, kind: .pin)
    }
    // Without the key every live pass is hashed: 500 passes, a tenth, already shows it.
    Benchmark("Wrong code, no lookup key, 500 live passes", configuration: configuration) { benchmark in
        try await attempts(benchmark, passes: SmokeRun.size(500, smoke: 5), lookupKey: false, kind: .code, requests: SmokeRun.size(10, smoke: 1))
    }
}
