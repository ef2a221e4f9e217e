import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import SiteSQL
import Testing
import VerifierTestSupport

/// One schema over both databases (issue 44): after every migration, SQLite and PostgreSQL
/// have the same tables, the same columns with types of the same meaning, the same primary
/// keys and the same indexes; and a database as an earlier release left it (versions 4 and
/// 6) upgrades in place with every row intact.
@Suite("One schema over SQLite and PostgreSQL", .serialized, .heavy)
struct SchemaParityTests {
    /// A database's schema as it describes itself.
    struct Schema: Equatable, CustomStringConvertible {
        /// Table to column to the type's meaning (``meaning(sqlite:)``, ``meaning(postgres:)``).
        var columns: [String: [String: String]] = [:]
        /// Table to its primary key's columns, sorted.
        var primaryKeys: [String: [String]] = [:]
        /// Index names (not the ones a primary key makes).
        var indexes: Set<String> = []

        var description: String {
            columns.keys.sorted().map { table in
                "\(table)(\(columns[table]!.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); pk \(primaryKeys[table] ?? []))"
            }.joined(separator: "\n") + "\nindexes: \(indexes.sorted())"
        }
    }

    /// What an SQLite declared type holds (SQLite keeps booleans as integers, times and JSON as text).
    static func meaning(sqlite type: String) -> String {
        switch type.uppercased() {
        case "INTEGER": return "integer"
        case "REAL": return "real"
        case "TEXT": return "text"
        default: return "other: \(type)"
        }
    }

    /// What a PostgreSQL type holds, in SQLite's words where SQLite stores it so.
    static func meaning(postgres type: String) -> String {
        switch type {
        case "bigint", "integer", "boolean": return "integer"
        case "double precision": return "real"
        case "text", "timestamp with time zone", "jsonb": return "text"
        default: return "other: \(type)"
        }
    }

    static func schema(_ store: StoreUnderTest) async throws -> Schema {
        var schema = Schema()
        switch store.kind {
        case .sqlite:
            let columns = try await store.rows(
                sqlite: """
                    SELECT m.name, p.name, p.type, p.pk FROM sqlite_master m JOIN pragma_table_info(m.name) p
                    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.pk
                    """, postgres: "")
            for row in columns {
                schema.columns[row[0], default: [:]][row[1]] = meaning(sqlite: row[2])
                if row[3] != "0" { schema.primaryKeys[row[0], default: []].append(row[1]) }
            }
            let indexes = try await store.rows(sqlite: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL", postgres: "")
            schema.indexes = Set(indexes.map { $0[0] })
        case .postgres:
            let columns = try await store.rows(
                sqlite: "",
                postgres: "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2")
            for row in columns { schema.columns[row[0], default: [:]][row[1]] = meaning(postgres: row[2]) }
            let keys = try await store.rows(
                sqlite: "",
                postgres: """
                    SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
                    JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_name = c.table_name
                    WHERE c.table_schema = 'public' AND c.constraint_type = 'PRIMARY KEY' ORDER BY 1, 2
                    """)
            for row in keys { schema.primaryKeys[row[0], default: []].append(row[1]) }
            let indexes = try await store.rows(
                sqlite: "", postgres: "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey'")
            schema.indexes = Set(indexes.map { $0[0] })
        }
        for table in schema.primaryKeys.keys { schema.primaryKeys[table]?.sort() }
        return schema
    }

    @Test func bothDatabasesEndWithTheSameTablesColumnsKeysAndIndexes() async throws {
        let sqlite = try await StoreUnderTest.make(.sqlite)
        let postgres = try await StoreUnderTest.make(.postgres)
        defer {
            Task {
                await sqlite.destroy()
                await postgres.destroy()
            }
        }
        let lite = try await Self.schema(sqlite)
        let pg = try await Self.schema(postgres)
        #expect(lite.columns.keys.sorted() == pg.columns.keys.sorted())
        for table in lite.columns.keys.sorted() {
            #expect(lite.columns[table] == pg.columns[table], "\(table)")
            #expect(lite.primaryKeys[table] == pg.primaryKeys[table], "\(table)'s primary key")
        }
        #expect(
            lite.indexes == pg.indexes, "only in SQLite: \(lite.indexes.subtracting(pg.indexes)); only in PostgreSQL: \(pg.indexes.subtracting(lite.indexes))")
        #expect(lite.columns["kioskpad_lockout"]?["failures"] == "text" && lite.indexes.contains("kioskpad_users_name"))
        // Version 6 differed, and this comparison sees it: PostgreSQL had no index on the
        // users' names and kept the lockout history as an array.
        let previous = try await StoreUnderTest.make(.postgres, schemaVersion: 6)
        defer { Task { await previous.destroy() } }
        let pg6 = try await Self.schema(previous)
        #expect(!pg6.indexes.contains("kioskpad_users_name") && pg6.columns["kioskpad_lockout"]?["failures"] == "other: ARRAY", "\(pg6)")
        #expect(pg6.columns["kioskpad_lockout"] != lite.columns["kioskpad_lockout"])
    }

    /// Version 4 (when this issue was filed), 6, 7 (the release before holidays) and 8 (the
    /// release before card and PIN, and enrolment codes) of each store.
    @Test(arguments: StoreUnderTest.Kind.allCases, [4, 6, 7, 8])
    func anOlderDatabaseUpgradesWithEveryRowIntact(_ kind: StoreUnderTest.Kind, _ version: Int) async throws {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let old = try await StoreUnderTest.make(
            kind, users: try UsersFile(parsing: "alice:\(alice)\nbob:\(alice):card\n", source: "users"), schemaVersion: version)
        let now = Date()
        try await old.administration.setSchedule(name: "days", spec: "mon-fri 08:00-18:00")
        // Written as the old schema holds it (today's commands read tables it does not have yet).
        let rule = "INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES ('alice', 'schedule=days', 'days')"
        try await old.execute(sqlite: rule, postgres: rule)
        let code = "INSERT INTO kioskpad_codes (user_name, hash, expires_at) VALUES ('alice', '\(alice)', \(Int(now.timeIntervalSince1970) + 600))"
        try await old.execute(sqlite: code, postgres: code)
        try await old.administration.addDoor(terminalID: "front-door", secret: WebhookSecret.generate())
        _ = try await old.store.storeEvents([
            DoorEvent(id: "e1", terminalID: "front-door", type: "start", time: now, sequence: 1, json: "{\"id\":\"e1\",\"type\":\"start\"}")
        ])
        let audit =
            "INSERT INTO kioskpad_audit (instance, record) VALUES ('test', '{\"decision\":\"granted\",\"time\":\"2026-11-27T08:00:00.000Z\",\"user\":\"alice\"}')"
        try await old.execute(sqlite: audit, postgres: audit)
        // As the old schema holds an administrator (no role: every one could do everything).
        let admin = "INSERT INTO kioskpad_admins (name, hash) VALUES ('root', '\(alice)')"
        try await old.execute(sqlite: admin, postgres: admin)
        // A lockout history as versions 1 to 6 kept it: comma-separated text in SQLite, an array in PostgreSQL (text from 7).
        try await old.execute(
            sqlite:
                "INSERT INTO kioskpad_lockout (terminal_id, failures, streak, locked_until) VALUES ('front-door', '1764230000.5,1764230001.25', 2, 1764230300)",
            postgres:
                "INSERT INTO kioskpad_lockout (terminal_id, failures, streak, locked_until) VALUES ('front-door', '\(version < 7 ? "{1764230000.5,1764230001.25}" : "1764230000.5,1764230001.25")', 2, 1764230300)"
        )
        let tables = [
            "kioskpad_users", "kioskpad_codes", "kioskpad_schedules", "kioskpad_access", "kioskpad_doors", "kioskpad_events", "kioskpad_audit",
            "kioskpad_admins", "kioskpad_lockout", "kioskpad_site",
        ]
        var before: [String: Int] = [:]
        for table in tables { before[table] = try await old.count(table) }
        await old.close()

        let store = try await old.reopened()
        defer { Task { await store.destroy() } }
        for table in tables { #expect(try await store.count(table) == before[table], "\(kind) v\(version): \(table)") }
        #expect(before["kioskpad_users"] == 2 && before["kioskpad_lockout"] == 1)
        let policy = LockoutPolicy(maxFailures: 5, window: .seconds(600_000_000))
        let lockouts = try await store.administration.lockouts(policy: policy)
        #expect(lockouts.map(\.terminal) == ["front-door"], "\(kind)")
        #expect(lockouts.first?.tracker.failureTimes == [.seconds(1_764_230_000.5), .seconds(1_764_230_001.25)], "\(kind)")
        #expect(lockouts.first?.tracker.streak == 2, "\(kind)")
        #expect(try await store.administration.siteRules().rules["alice"]?.schedule == "days", "\(kind)")
        #expect(
            try await store.rows(sqlite: "SELECT max(version) FROM kioskpad_schema_migrations", postgres: "SELECT max(version) FROM kioskpad_schema_migrations")
                == [[String(SiteMigrations.latestVersion)]])
        // The tables the upgrade brought are there and used.
        try await store.administration.setHoliday(try Holiday(day: "2027-12-25", words: ["schedule=days"]))
        try await store.administration.setMode(.lockdown, door: "front-door", by: "test", at: now)
        try await store.administration.setCardAndPIN(door: "vault", CardAndPINRule(schedule: "days"))
        let site = try await store.administration.siteRules()
        #expect(site.holidays.map(\.line) == ["2027-12-25 schedule=days"] && site.modes.mode(at: "front-door") == .lockdown, "\(kind)")
        #expect(site.cardAndPIN == ["vault": CardAndPINRule(schedule: "days")], "\(kind)")
        // The code from before is an entry code still, and no enrolment code.
        #expect(try await store.store.liveCodes(now: now).map(\.user) == ["alice"], "\(kind)")
        #expect(try await store.store.liveEnrolmentCodes(now: now).isEmpty, "\(kind)")
    }

    /// A version-4 database exactly as the released kioskpad made it (its own migration
    /// statements, kept as SQL text in Fixtures/, made by make-v4-fixtures.py), with a row in
    /// every table, upgrades to the latest version with every row intact and readable.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aReleasedVersion4DatabaseUpgradesWithEveryRowIntact(_ kind: StoreUnderTest.Kind) async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let store = try await StoreUnderTest.restoring(kind, dump: fixtures.appendingPathComponent("v4-\(kind).sql"))
        defer { Task { await store.destroy() } }
        let tables = [
            "kioskpad_users", "kioskpad_codes", "kioskpad_schedules", "kioskpad_access", "kioskpad_doors", "kioskpad_events", "kioskpad_audit",
            "kioskpad_admins", "kioskpad_console_sessions", "kioskpad_alert_acks", "kioskpad_lockout", "kioskpad_site",
        ]
        for table in tables { #expect(try await store.count(table) == 1 + (table == "kioskpad_users" ? 1 : 0), "\(kind): \(table)") }
        #expect(
            try await store.rows(sqlite: "SELECT max(version) FROM kioskpad_schema_migrations", postgres: "SELECT max(version) FROM kioskpad_schema_migrations")
                == [[String(SiteMigrations.latestVersion)]])
        let hash = "$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0"
        let records = try await store.administration.records()
        #expect(records.map { "\($0.name) \($0.kind) \($0.pinHash)" } == ["alice pin \(hash)", "bob card \(hash)"], "\(kind)")
        let site = try await store.administration.siteRules()
        #expect(site.timeZone == "Europe/Berlin" && site.schedules["days"] == "mon-fri 08:00-18:00" && site.rules["alice"]?.schedule == "days", "\(kind)")
        let now = Date(timeIntervalSince1970: 1_764_230_000)
        #expect(try await store.console.unusedCodes(now: now).map { "\($0.user) \($0.door ?? "-")" } == ["alice front-door"], "\(kind)")
        #expect(try await store.administration.doors().map(\.terminalID) == ["front-door"], "\(kind)")
        let events = try await store.store.recentEvents(perTerminal: 5)
        #expect(events.map(\.terminal) == ["front-door"] && events.first?.newestFirst.map(\.id) == ["e1"], "\(kind)")
        let audit = try await store.auditRecords()
        #expect(audit.map { $0["user"] } == ["alice"], "\(kind)")
        // Every administrator could do everything before roles: each is an owner after the upgrade.
        #expect(try await store.console.adminRoles().map { "\($0.name) \($0.role.name)" } == ["root owner"], "\(kind)")
        let session = try await store.console.session(tokenHash: "tokenhash1", now: now, idle: 600)
        #expect(session?.admin == "root" && session?.role == .owner, "\(kind)")
        #expect(try await store.console.acknowledgements().map(\.alert) == ["offline"], "\(kind)")
        let lockouts = try await store.administration.lockouts(policy: LockoutPolicy(maxFailures: 5, window: .seconds(600_000_000)))
        #expect(
            lockouts.first?.tracker.failureTimes == [.seconds(1_764_230_000.5), .seconds(1_764_230_001.25)] && lockouts.first?.tracker.streak == 2, "\(kind)")
        // The replica's version row came with version 5, its keys with the upgrade's first start.
        #expect(try await store.count("kioskpad_replica") == 1, "\(kind)")
    }
}
