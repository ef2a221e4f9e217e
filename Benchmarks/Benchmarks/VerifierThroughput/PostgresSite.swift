import Benchmark
import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import TestPeers

/// How many verifications per second one or two `kioskpad verifier serve` processes decide
/// when they share one PostgreSQL (`server.store: postgres`), with 10 or 10,000 users. The
/// database is a real PostgreSQL started for the benchmark (initdb, loopback); the servers
/// are the release build (`swift build -c release` in the main package, or
/// `$KIOSKPAD_BINARY`), each in its own process, optionally pinned to one core each
/// (taskset). Users' lines carry lookup tags: ana's PIN at the default work factor
/// (PBKDF2-SHA256, 75,000 iterations), the others at 1,000 so the table is made in seconds;
/// with tags only ana's row is hashed. Each terminal has its own signed client and asks
/// the instance its number picks (round robin), as behind a proxy.
final class PostgresSite {
    let database: PostgresTestServer
    let secret = WebhookSecret.generate()
    private(set) var ports: [Int] = []
    private var processes: [Process] = []
    private let directory: URL

    static var binary: String { ThroughputServer.binary }

    init(users: Int, instances: Int, pinned: Bool) throws {
        guard FileManager.default.isExecutableFile(atPath: PostgresSite.binary) else {
            fatalError("no kioskpad at \(PostgresSite.binary): run `swift build -c release` in the main package, or set KIOSKPAD_BINARY")
        }
        database = try PostgresTestServer()
        directory = database.directory
        let keyText = WebhookSecret.generate().text
        try keyText.write(to: directory.appendingPathComponent("lookup.key"), atomically: true, encoding: .utf8)
        try secret.text.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("verifier.yaml").path
        try """
        server:
          listen: 127.0.0.1:0
          secret_file: secret
          lookup_key_file: lookup.key
          store: postgres
          postgres:
            url: \(database.url)
            password_file: \(database.passwordFile)
            tls: disable

        """.write(toFile: config, atomically: true, encoding: .utf8)
        try ThroughputServer.run(["verifier", "migrate", "--config", config])
        let key = try LookupKey(text: keyText)
        var rows: [String] = []
        let ana = SecretDigits(ascii: "4826")!
        rows.append(PostgresSite.row("ana", try PINHash.make(pin: ana), key.tag(ana, kind: .pin)))
        for index in 1..<users {
            let value = (4827 + index) % 10_000
            let pin = SecretDigits(ascii: String(format: "%04d", value == 4826 ? 0 : value))!
            rows.append(PostgresSite.row("user\(index)", try PINHash.make(pin: pin, iterations: 1_000), key.tag(pin, kind: .pin)))
        }
        let sql = directory.appendingPathComponent("users.sql").path
        try ("INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id) VALUES\n" + rows.joined(separator: ",\n") + ";\n")
            .write(toFile: sql, atomically: true, encoding: .utf8)
        try database.sql(file: sql)
        try database.sql("ANALYZE kioskpad_users")  // as autovacuum would soon: the planner's statistics
        for index in 0..<instances {
            try start(config: config, core: pinned ? index : nil)
        }
    }

    private static func row(_ name: String, _ hash: PINHash, _ tag: String) -> String {
        "('\(name)', 'pin', '\(hash)', '\(tag)', '\(tag.prefix(8))')"
    }

    /// Starts one `verifier serve` (under `taskset -c CORE` when given) and reads its port.
    private func start(config: String, core: Int?) throws {
        let process = Process()
        ports.append(try ThroughputServer.serve(process, config: config, core: core))
        processes.append(process)
    }

    /// One client per terminal, terminal i asking instance i mod the number of instances.
    func clients(_ count: Int) throws -> [HTTPVerifier] {
        var logger = Logger(label: "bench-client")
        logger.logLevel = .error
        return try (0..<count).map { index in
            let port = ports[index % ports.count]
            return try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: .seconds(30), secret: secret), logger: logger)
        }
    }

    func stop() {
        for process in processes {
            process.terminate()
            process.waitUntilExit()
        }
        database.destroy()
    }
}

/// Batches against `instances` `verifier serve` processes sharing one PostgreSQL.
func postgresBatches(_ benchmark: Benchmark, terminals: Int, users: Int, instances: Int, pinned: Bool = false) async throws {
    let site = try PostgresSite(users: users, instances: instances, pinned: pinned)
    defer { site.stop() }
    try await batches(benchmark, clients: try site.clients(terminals))
}

/// `--filter 'PostgreSQL.*'`; needs Debian's postgresql (each benchmark starts its own).
func postgresBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, requestLatency], warmupIterations: 2, maxDuration: .seconds(45), maxIterations: 200)
    for users in [10, 10_000] {
        for instances in [1, 2] {
            Benchmark("PostgreSQL, \(instances) instance\(instances == 1 ? "" : "s"), \(users) users, 8 terminals at once", configuration: configuration) {
                benchmark in
                try await postgresBatches(benchmark, terminals: 8, users: users, instances: instances)
            }
        }
    }
    // One core per instance: how the rate grows with instances when each has a core.
    Benchmark("PostgreSQL, 1 instance on 1 core, 10 users, 8 terminals at once", configuration: configuration) { benchmark in
        try await postgresBatches(benchmark, terminals: 8, users: 10, instances: 1, pinned: true)
    }
    Benchmark("PostgreSQL, 2 instances on 1 core each, 10 users, 8 terminals at once", configuration: configuration) { benchmark in
        try await postgresBatches(benchmark, terminals: 8, users: 10, instances: 2, pinned: true)
    }
}
