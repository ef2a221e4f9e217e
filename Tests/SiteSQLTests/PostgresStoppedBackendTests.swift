import Foundation
import KeypadTestSupport
import Logging
import PostgresNIO
import SitePostgres
import TestPeers
import Testing

/// A database server that stops answering on a connection the site holds (a half-open
/// connection, a frozen backend): the site's use ends at its deadline, not when TCP gives up,
/// and the next use gets a new connection. The backend is frozen with SIGSTOP, so the server
/// neither answers nor closes, as across a partition.
@Suite("PostgreSQL: a connection that stops answering", .heavy)
struct PostgresStoppedBackendTests {
    func backendPID(_ database: PostgresVerifierDatabase) async throws -> Int32 {
        try await database.use { connection in
            let rows = try await connection.query("SELECT pg_backend_pid()", logger: database.logger)
            for try await pid in rows.decode(Int32.self) { return pid }
            return 0
        }
    }

    /// Stops backend `pid` (SIGSTOP) for `body`, then lets it run again; a task lets it run
    /// after 30 s whatever `body` does (before the fix, a use waited until then).
    func whileFrozen(_ pid: Int32, _ body: () async throws -> Void) async rethrows {
        #expect(kill(pid_t(pid), SIGSTOP) == 0)
        let thaw = Task {
            try? await Task.sleep(for: .seconds(30))
            kill(pid_t(pid), SIGCONT)
        }
        defer {
            thaw.cancel()
            kill(pid_t(pid), SIGCONT)
        }
        try await body()
    }

    @Test func aUseOfAFrozenBackendEndsAtTheDeadlineAndTheNextUseGetsANewConnection() async throws {
        let server = try await onOwnThread { try PostgresTestServer() }
        defer { server.destroy() }
        var logger = Logger(label: "stopped-backend-test")
        logger.logLevel = .critical
        // One connection, so the second use below could only reuse the frozen one unless it was closed.
        let database = PostgresVerifierDatabase(
            servers: [("127.0.0.1", server.port)], user: server.user, database: server.database, password: server.password, tls: nil,
            poolSize: 1, timeout: .seconds(1), logger: logger)
        let pool = Task { await database.run() }
        defer { pool.cancel() }

        let frozen = try await backendPID(database)
        #expect(frozen > 0)
        try await whileFrozen(frozen) {
            let started = ContinuousClock.now
            await #expect(throws: PostgresVerifierDatabase.Failure.self) {
                try await database.use { connection in
                    _ = try await connection.query("SELECT 1", logger: database.logger)
                }
            }
            let waited = ContinuousClock.now - started
            // The deadline is 1 s; the backend runs again only after 30 s.
            #expect(waited < .seconds(15), "the use ended after \(waited)")

            // The frozen backend is still stopped; the next use is answered on a new connection.
            let next = try await backendPID(database)
            #expect(next > 0 && next != frozen, "the second use ran on backend \(next), the frozen one is \(frozen)")
        }
    }

    /// The look for the writable server asks every server at once; one whose pooled connection
    /// stopped answering must not hold the look past its deadline, or the instance would not
    /// follow a failover across a partition.
    @Test func theLookForTheWritableServerIsNotHeldByAFrozenBackend() async throws {
        let first = try await onOwnThread { try PostgresTestServer() }
        defer { first.destroy() }
        let second = try await onOwnThread { try PostgresTestServer() }
        defer { second.destroy() }
        // One password names both servers in one URL.
        _ = try await second.query("ALTER ROLE \(second.user) PASSWORD '\(first.password)'")
        var logger = Logger(label: "stopped-backend-test")
        logger.logLevel = .critical
        let database = PostgresVerifierDatabase(
            servers: [("127.0.0.1", first.port), ("127.0.0.1", second.port)], user: first.user, database: first.database,
            password: first.password, tls: nil, poolSize: 1, timeout: .seconds(1), logger: logger)
        let pool = Task { await database.run() }
        defer { pool.cancel() }

        // Before any look, the first server is used: its one pooled connection is the one frozen.
        #expect(database.serverInUse == "127.0.0.1:\(first.port)")
        let frozen = try await backendPID(database)
        await whileFrozen(frozen) {
            let started = ContinuousClock.now
            await database.findWritable()
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(15), "the look ended after \(waited)")
            #expect(database.serverInUse == "127.0.0.1:\(second.port)")
        }
    }
}
