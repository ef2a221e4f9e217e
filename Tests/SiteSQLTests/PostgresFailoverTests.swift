import Foundation
import KeypadTestSupport
import Logging
import SitePostgres
import TestPeers
import Testing

/// A site's database as a primary and a streaming-replication standby, named in one URL: the
/// instance's pool finds the writable one whatever the order, and after the primary crashes
/// and the standby is promoted it writes to the new primary by itself, with what was written
/// before the crash there.
@Suite("PostgreSQL: a primary, its standby and a failover", .serialized, .heavy)
struct PostgresFailoverTests {
    func database(_ servers: [PostgresTestServer]) -> PostgresVerifierDatabase {
        var logger = Logger(label: "failover-test")
        logger.logLevel = .warning
        return PostgresVerifierDatabase(
            servers: servers.map { ("127.0.0.1", $0.port) }, user: "kioskpad", database: "kioskpad", password: servers[0].password, tls: nil,
            poolSize: 2, timeout: .seconds(3), logger: logger)
    }

    func insert(_ database: PostgresVerifierDatabase, _ value: String) async throws {
        try await database.transaction { connection in
            _ = try await connection.query("INSERT INTO failover_probe (value) VALUES (\(value))", logger: database.logger)
        }
    }

    /// Whether `condition` holds within `limit`, asked every 200 ms.
    func within(_ limit: Duration, _ condition: @Sendable () async -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return await condition()
    }

    @Test func thePoolFollowsThePromotedStandby() async throws {
        let primary = try await onOwnThread { try PostgresTestServer() }
        defer { primary.destroy() }
        try await primary.query("CREATE TABLE failover_probe (value text NOT NULL)")
        let standby = try await onOwnThread { try PostgresTestServer(standbyOf: primary) }
        defer { standby.destroy() }

        // The standby named first: the writable server is found before the first use.
        let database = database([standby, primary])
        let pool = Task { await database.run() }
        defer { pool.cancel() }
        await database.findWritable()
        #expect(database.serverInUse == "127.0.0.1:\(primary.port)")
        try await insert(database, "before")
        // The standby has it once it has replayed it (asynchronous replication).
        #expect(await within(.seconds(20)) { (try? await standby.query("SELECT count(*) FROM failover_probe")) == "1\n" })

        try await onOwnThread { try primary.crash() }
        // With the primary gone and nothing promoted, writes fail (the door is answered 503).
        await #expect(throws: (any Error).self) { try await insert(database, "gap") }
        try await onOwnThread { try standby.promote() }
        // The pool looks again after a failed use, at most once a second: the next writes land.
        #expect(await within(.seconds(20)) { (try? await insert(database, "after")) != nil })
        #expect(database.serverInUse == "127.0.0.1:\(standby.port)")
        let rows = try await standby.query("SELECT string_agg(value, ',' ORDER BY value) FROM failover_probe")
        #expect(rows == "after,before\n", "\(rows)")
    }
}
