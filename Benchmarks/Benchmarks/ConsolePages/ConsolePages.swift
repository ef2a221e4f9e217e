// The site console's page loads, server time (Hummingbird's router test mode: the request
// goes through the router, the handlers and the database, no socket), over a site of
// 10,000 users, 1,000,000 forwarded door events from 50 doors and 250,000 audited decisions
// in SQLite. Run: cd Benchmarks && swift package benchmark --target ConsolePages
import Benchmark
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import Logging
import NIOCore
import SiteConsole
import SiteCore
import SiteSQL
import SiteSQLite
import SmokeRun

/// The site, made once per process in a temporary SQLite file.
enum ConsoleFixture {
    static let users = 10_000
    static let events = 1_000_000
    static let decisions = 250_000
    static let doors = 50
    static let password = "benchmark password"
    /// This process's database file.
    static var path: String { FileManager.default.temporaryDirectory.appendingPathComponent("kp-console-bench-\(getpid()).sqlite3").path }

    static let services: Task<ConsoleServices, any Error> = Task {
        var logger = Logger(label: "console-benchmark")
        logger.logLevel = .error
        let path = ConsoleFixture.path
        // The file (about 270 MB, and as much again of WAL) goes when the process ends.
        atexit {
            for suffix in ["", "-wal", "-shm"] { unlink(ConsoleFixture.path + suffix) }
        }
        let database = try await SQLiteVerifierDatabase.open(path: path, busyTimeout: .seconds(30), logger: logger)
        try await SiteMigrations.apply(on: database, location: database.path)
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4821")!, iterations: 1_000).description
        let now = Date().timeIntervalSince1970
        _ = try await database.inWriteTransaction { sql in
            // Rows made inside SQLite (a recursive counter), so setting up takes seconds.
            try await sql.query(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(users - 1))
                INSERT INTO kioskpad_users (name, kind, hash) SELECT printf('user-%05d', i), 'pin', ? FROM n
                """, [.text(hash)])
            try await sql.query(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 3 FROM n WHERE i < \(users - 3))
                INSERT INTO kioskpad_access (user_name, rule) SELECT printf('user-%05d', i), printf('doors=door-%02d,door-%02d', i % \(doors), (i + 7) % \(doors)) FROM n
                """)
            // A year of events, newest now: mostly heartbeats, then attempts, the door opening and closing.
            try await sql.query(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(events - 1))
                INSERT INTO kioskpad_events (id, terminal_id, type, at, seq, record)
                SELECT printf('e%07d', i), printf('door-%02d', i % \(doors)),
                       CASE WHEN i % 20 < 14 THEN 'status' WHEN i % 20 < 17 THEN 'attempt' WHEN i % 20 < 19 THEN 'door_opened' ELSE 'door_closed' END,
                       \(now) - (\(events) - i) * 31.5, i,
                       CASE WHEN i % 20 < 14 THEN '{"door":"closed","keypad":"ok","tamper":"clear","locked_out":"no"}'
                            WHEN i % 20 < 17 THEN printf('{"decision":"granted","user":"user-%05d"}', i % \(users)) ELSE '{}' END
                FROM n
                """)
            try await sql.query(
                """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(decisions - 1))
                INSERT INTO kioskpad_audit (at, instance, record)
                SELECT strftime('%Y-%m-%dT%H:%M:%fZ', \(now) - (\(decisions) - i) * 126, 'unixepoch'), 'bench',
                       printf('{"decision":"%s","reason":"match","terminal_id":"door-%02d","user":"user-%05d"}',
                              CASE WHEN i % 9 = 0 THEN 'denied' ELSE 'granted' END, i % \(doors), i % \(users))
                FROM n
                """)
            try await sql.query("ANALYZE")
        }
        let console = SQLConsoleStore(database: database)
        _ = try await console.addAdmin(name: "alice", hash: try PINHash.make(password: Array(password.utf8), iterations: 1_000), role: .owner, doorGroups: nil)
        return ConsoleServices(
            administration: SQLUserDirectory(database: database, location: database.path, configKey: "server.sqlite.path"), console: console,
            store: SQLVerifierStore(database: database, instance: "bench"), lookupKey: nil, codeLength: 8)
    }

    /// Runs `body` with a logged-in client of a console over the fixture.
    static func withClient(_ body: @Sendable (any TestClientProtocol, HTTPFields) async throws -> Void) async throws {
        var logger = Logger(label: "console-benchmark")
        logger.logLevel = .error
        let app = Application(router: SiteConsole.router(services: try await services.value, options: ConsoleOptions(), logger: logger), logger: logger)
        try await app.test(.router) { client in
            let form = try await client.execute(uri: "/console/login", method: .get)
            let loginCookie = form.headers[values: .setCookie].first { $0.hasPrefix("kp_login=") }?.split(separator: ";")[0] ?? ""
            let token = loginCookie.split(separator: "=")[1]
            let login = try await client.execute(
                uri: "/console/login", method: .post, headers: [.cookie: String(loginCookie), .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "login_token=\(token)&name=alice&password=benchmark+password"))
            let session = login.headers[values: .setCookie].first { $0.hasPrefix("kp_session=") }?.split(separator: ";")[0] ?? ""
            precondition(!session.isEmpty, "the benchmark could not log in")
            try await body(client, [.cookie: String(session)])
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let pages = [
        ("Doors", "/console/doors"), ("Doors, live update (doors.json)", "/console/doors.json"),
        ("Users, first page", "/console/users"), ("Users, search", "/console/users?q=user-0999"),
        ("Who entered, first page", "/console/entries"), ("Who entered, one door and user", "/console/entries?door=door-07&user=user-00007"),
        ("Who entered, page 100", "/console/entries?page=100"), ("Codes", "/console/codes"),
    ]
    for (name, path) in pages {
        Benchmark(
            "Console page: \(name) (10,000 users, 1,000,000 events)",
            configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 200)
        ) { benchmark in
            // The benchmark object is used by this one task only; the test client's closure must be Sendable.
            let measured = UncheckedBox(benchmark)
            try await ConsoleFixture.withClient { client, session in
                let benchmark = measured.value
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    let response = try await client.execute(uri: path, method: .get, headers: session)
                    precondition(response.status == .ok, "\(path): \(response.status)")
                    blackHole(response.body.readableBytes)
                }
                benchmark.stopMeasurement()
            }
        }
    }
    SmokeRun.clampIfAsked()
}

/// Carries a value into a `@Sendable` closure that runs on the same task.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
