import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import SiteCore
import SitePostgres
import SiteSQL
import SiteSQLite
import Synchronization
import TestPeers

/// A verifier store made for one test, with its schema: a new SQLite file in a temporary
/// directory, or a real PostgreSQL started for the test (initdb, a loopback port). The same
/// assertions run against both (`@Test(arguments: StoreKind.allCases)`).
public final class StoreUnderTest: Sendable {
    /// Which store.
    public enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case sqlite, postgres
        public var description: String { rawValue }
    }

    public let kind: Kind
    public let store: any VerifierStore
    public let administration: any VerifierAdministration
    /// The site console's tables.
    public let console: any ConsoleStore
    /// The management API's tokens (the console's tables' store, as a site has it).
    public var tokens: any APITokenStore { console as! any APITokenStore }
    /// Webhook subscriptions and their queue, in the same database.
    public var webhooks: any WebhookStore { SQLWebhookStore(database: (console as! SQLConsoleStore).database) }
    /// The same database's store with other webhook queue limits (as `server.webhooks.max_pending` sets them).
    public func store(webhookQueue: WebhookQueueLimits) -> any VerifierStore {
        SQLVerifierStore(database: (console as! SQLConsoleStore).database, instance: "test", webhookQueue: webhookQueue)
    }
    /// The SQLite file (nil for PostgreSQL).
    public let sqlitePath: String?
    private let directory: URL
    private let postgres: PostgresTestServer?
    private let closing: @Sendable () async -> Void

    /// Stores that stay open until the process ends (``ReferenceVerifier/overNewStore(settings:users:)``).
    static let keptOpen = Mutex<[StoreUnderTest]>([])

    /// A new empty store of `kind` holding `users`.
    /// `schemaVersion`: the schema as an older kioskpad left it (``reopened()`` brings it up to date).
    public static func make(_ kind: Kind, users: UsersFile = UsersFile(users: []), schemaVersion: Int = .max) async throws -> StoreUnderTest {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = kind == .postgres ? try await onOwnThread { try PostgresTestServer() } : nil
        let made = try await open(kind, directory: directory, postgres: server, schemaVersion: schemaVersion)
        if !users.users.isEmpty { _ = try await made.administration.importRecords { try UsersImport.plan(users, existing: $0) } }
        return made
    }

    /// A store of `kind` restored from `dump` (SQL text: sqlite3's `iterdump` or a plain
    /// `pg_dump`), a database as an earlier kioskpad left it, then opened and brought up to
    /// date as `verifier serve` would.
    public static func restoring(_ kind: Kind, dump: URL) async throws -> StoreUnderTest {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .sqlite:
            let path = directory.appendingPathComponent("verifier.sqlite3").path
            // Python's sqlite3 runs the script whole (sqlite-nio prepares one statement at a time).
            let script = "import sqlite3, sys; sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())"
            let (status, _) = try await onOwnThread { try SpawnedChild.run(["/usr/bin/env", "python3", "-c", script, path, dump.path]) }
            guard status == 0 else { throw SiteStoreFailure("python3 could not restore \(dump.lastPathComponent) (exit \(status))") }
            return try await open(kind, directory: directory, postgres: nil)
        case .postgres:
            let server = try await onOwnThread { try PostgresTestServer() }
            // A copy the server's own user can read, wherever the checkout is.
            let copy = server.directory.appendingPathComponent("restore.sql")
            try FileManager.default.copyItem(at: dump, to: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
            try await onOwnThread { try server.sql(file: copy.path) }
            return try await open(kind, directory: directory, postgres: server)
        }
    }

    /// The same database opened again with new connections, as after a restart (close this one first).
    public func reopened() async throws -> StoreUnderTest {
        try await StoreUnderTest.open(kind, directory: directory, postgres: postgres)
    }

    private static func open(_ kind: Kind, directory: URL, postgres: PostgresTestServer?, schemaVersion: Int = .max) async throws -> StoreUnderTest {
        var logger = Logger(label: "store-under-test")
        logger.logLevel = .error
        switch kind {
        case .sqlite:
            let path = directory.appendingPathComponent("verifier.sqlite3").path
            let database = try await SQLiteVerifierDatabase.open(path: path, busyTimeout: .seconds(5), logger: logger)
            try await SiteMigrations.apply(on: database, location: path, upTo: schemaVersion)
            return StoreUnderTest(
                kind: kind, store: SQLVerifierStore(database: database, instance: "test"),
                administration: SQLUserDirectory(database: database, location: path, configKey: "server.sqlite.path"),
                console: SQLConsoleStore(database: database), sqlitePath: path, directory: directory, postgres: nil, closing: { await database.close() })
        case .postgres:
            guard let postgres else { preconditionFailure("a PostgreSQL store needs its server") }
            let password = try String(contentsOfFile: postgres.passwordFile, encoding: .utf8).trimmingCharacters(in: .newlines)
            let database = PostgresVerifierDatabase(
                host: "127.0.0.1", port: postgres.port, user: postgres.user, database: postgres.database, password: password, tls: nil,
                poolSize: 8, timeout: .seconds(10), logger: logger)
            let pool = Task { await database.run() }
            try await SiteMigrations.apply(on: database, location: postgres.url, upTo: schemaVersion)
            return StoreUnderTest(
                kind: kind, store: SQLVerifierStore(database: database, instance: "test"),
                administration: SQLUserDirectory(database: database, location: postgres.url, configKey: "server.postgres.url"),
                console: SQLConsoleStore(database: database),
                sqlitePath: nil, directory: directory,
                postgres: postgres, closing: { pool.cancel() })
        }
    }

    private init(
        kind: Kind, store: any VerifierStore, administration: any VerifierAdministration, console: any ConsoleStore, sqlitePath: String?, directory: URL,
        postgres: PostgresTestServer?, closing: @escaping @Sendable () async -> Void
    ) {
        self.kind = kind
        self.store = store
        self.administration = administration
        self.console = console
        self.sqlitePath = sqlitePath
        self.directory = directory
        self.postgres = postgres
        self.closing = closing
    }

    /// Issues a one-time code for `user`, valid until `now + ttl`, tagged with `lookupKey`'s
    /// code tag when given; returns the code (its only copy).
    public func issueCode(
        user: String, ttl: TimeInterval, now: Date, length: Int = 8, door: String? = nil, lookupKey: LookupKey? = nil
    ) async throws -> String {
        let code = OneTimeCode.make(length: length)
        try await administration.issueCode(
            user: user, hash: try PINHash.make(pin: code, iterations: 1_000), lookupTag: lookupKey?.codeTag(code),
            expires: now.addingTimeInterval(ttl), door: door)
        return code.withASCIIBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Every audit record (up to 100,000), oldest first, as string fields.
    public func auditRecords() async throws -> [[String: String]] {
        try await administration.auditRecords(last: 100_000).map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] ?? [:]
        }
    }

    /// From now on every audit row is refused (a trigger), as when the audit cannot be written.
    public func breakAuditTable() async throws {
        try await refuseInserts(into: "kioskpad_audit")
    }

    /// Undoes ``breakAuditTable()``.
    public func repairAuditTable() async throws {
        try await allowInserts(into: "kioskpad_audit")
    }

    /// From now on every row inserted into `table` is refused (a trigger), as when that part
    /// of a change cannot be written.
    public func refuseInserts(into table: String) async throws {
        try await execute(
            sqlite: "CREATE TRIGGER kp_test_\(table)_broken BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, '\(table) broken by the test'); END",
            postgres: """
                CREATE OR REPLACE FUNCTION kp_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'broken by the test'; END $$;
                CREATE TRIGGER kp_test_\(table)_broken BEFORE INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION kp_test_refuse();
                """)
    }

    /// Undoes ``refuseInserts(into:)``.
    public func allowInserts(into table: String) async throws {
        try await execute(sqlite: "DROP TRIGGER kp_test_\(table)_broken", postgres: "DROP TRIGGER kp_test_\(table)_broken ON \(table);")
    }

    /// How many rows `table` has.
    public func count(_ table: String) async throws -> Int {
        if let postgres {
            let server = postgres
            return Int(try await onOwnThread { try server.sql("SELECT count(*) FROM \(table)") }.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        return try await sqliteDatabase.onReader { Int(try await $0.query("SELECT count(*) FROM \(table)").first?.columns.first?.data.integer ?? -1) }
    }

    /// The rows of a query of the test's own (text columns), in the database's order.
    public func rows(sqlite: String, postgres statement: String) async throws -> [[String]] {
        if let postgres {
            let server = postgres
            let text = try await onOwnThread { try server.sql(statement) }
            return text.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        }
        return try await sqliteDatabase.onReader { connection in
            try await connection.query(sqlite).map { row in row.columns.map { $0.data.string ?? $0.data.integer.map(String.init) ?? "" } }
        }
    }

    /// Runs a statement of the test's own on the database, as its owner.
    public func execute(sqlite: String, postgres statement: String) async throws {
        if let postgres {
            let server = postgres
            _ = try await onOwnThread { try server.sql(statement) }
        } else {
            _ = try await sqliteDatabase.inWriteTransaction { try await $0.query(sqlite) }
        }
    }

    /// The SQLite store's database (a PostgreSQL store has none).
    private var sqliteDatabase: SQLiteVerifierDatabase {
        (store as! SQLVerifierStore).database as! SQLiteVerifierDatabase
    }

    /// Closes the connections (the database stays, for ``reopened()``).
    public func close() async {
        await closing()
    }

    /// Closes and removes everything, the PostgreSQL server included (`pg_ctl stop` waits
    /// for the server to end: on a thread of its own, not the concurrency pool's).
    public func destroy() async {
        await closing()
        if let postgres { _ = try? await onOwnThread { postgres.destroy() } }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension ReferenceVerifier {
    /// A reference verifier over a new SQLite store holding `users` (a file in the temporary
    /// directory, for tests of what sits above the store: HTTP, signatures, limits). The
    /// store stays open until the test process ends (sqlite-nio wants every connection
    /// closed before it goes, and these tests do not close theirs).
    public static func overNewStore(settings: Settings, users: UsersFile) async throws -> ReferenceVerifier {
        let store = try await StoreUnderTest.make(.sqlite, users: users)
        StoreUnderTest.keptOpen.withLock { $0.append(store) }
        return ReferenceVerifier(settings: settings, store: store.store)
    }
}

/// The audit records in a verifier's SQLite file (a running server's too: WAL lets a reader in).
public enum SQLiteAuditReader {
    /// Every record (up to 100,000), oldest first, as JSON text.
    public static func records(path: String) async throws -> [String] {
        var logger = Logger(label: "audit-reader")
        logger.logLevel = .error
        let database = try await SQLiteVerifierDatabase.open(path: path, busyTimeout: .seconds(5), readers: 1, logger: logger)
        do {
            let records = try await SQLUserDirectory(database: database, location: path, configKey: "server.sqlite.path").auditRecords(last: 100_000)
            await database.close()
            return records
        } catch {
            await database.close()
            throw error
        }
    }
}
