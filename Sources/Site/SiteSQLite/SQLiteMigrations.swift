import Foundation

/// The verifier's schema in SQLite: the PostgreSQL schema's tables under the same version
/// numbers (``SitePostgres``'s `PostgresMigrations`), applied in order, each
/// once, in one write transaction that records the versions it brings. Applying them again
/// changes nothing; a file written by a newer kioskpad is refused.
public enum SQLiteMigrations {
    /// Each step's version and statements. Append new steps; never change a released one.
    static let steps: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE kioskpad_users (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('pin', 'duress', 'card')),
                    hash TEXT NOT NULL,
                    lookup_tag TEXT,
                    lookup_key_id TEXT,
                    totp_secret TEXT,
                    totp_last_step INTEGER,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
                    CHECK (totp_secret IS NULL OR kind = 'pin')
                )
                """,
                "CREATE UNIQUE INDEX kioskpad_users_one_pin ON kioskpad_users (name) WHERE kind = 'pin'",
                "CREATE UNIQUE INDEX kioskpad_users_one_duress ON kioskpad_users (name) WHERE kind = 'duress'",
                "CREATE INDEX kioskpad_users_lookup_tag ON kioskpad_users (lookup_tag)",
                "CREATE INDEX kioskpad_users_lookup_key_id ON kioskpad_users (lookup_key_id)",
                "CREATE INDEX kioskpad_users_name ON kioskpad_users (name)",
                "CREATE INDEX kioskpad_users_totp ON kioskpad_users (id) WHERE totp_secret IS NOT NULL",
                """
                CREATE TABLE kioskpad_codes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_name TEXT NOT NULL,
                    hash TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    used_at INTEGER
                )
                """,
                "CREATE INDEX kioskpad_codes_live ON kioskpad_codes (expires_at) WHERE used_at IS NULL",
                "CREATE TABLE kioskpad_replay (webhook_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)",
                "CREATE INDEX kioskpad_replay_expires ON kioskpad_replay (expires_at)",
                """
                CREATE TABLE kioskpad_lockout (
                    terminal_id TEXT PRIMARY KEY,
                    failures TEXT NOT NULL DEFAULT '',
                    streak INTEGER NOT NULL DEFAULT 0,
                    locked_until REAL
                )
                """,
                """
                CREATE TABLE kioskpad_audit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
                    instance TEXT NOT NULL,
                    record TEXT NOT NULL
                )
                """,
            ]
        ),
        (
            2,
            [
                // Who may enter where and when: the site's zone, named schedules, each user's
                // rule (absent: every door, always), doors' own secrets, codes for one door.
                "CREATE TABLE kioskpad_site (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE kioskpad_schedules (name TEXT PRIMARY KEY, spec TEXT NOT NULL)",
                "CREATE TABLE kioskpad_access (user_name TEXT PRIMARY KEY, rule TEXT NOT NULL, schedule TEXT)",
                "CREATE INDEX kioskpad_access_schedule ON kioskpad_access (schedule)",
                """
                CREATE TABLE kioskpad_doors (
                    terminal_id TEXT PRIMARY KEY,
                    secret TEXT NOT NULL,
                    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                )
                """,
                "ALTER TABLE kioskpad_codes ADD COLUMN door TEXT",
            ]
        ),
        (
            3,
            [
                // The journal records terminals forward (POST /v1/events), once each.
                """
                CREATE TABLE kioskpad_events (
                    id TEXT PRIMARY KEY,
                    terminal_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    at REAL NOT NULL,
                    seq INTEGER NOT NULL,
                    record TEXT NOT NULL,
                    received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                )
                """,
                "CREATE INDEX kioskpad_events_door_time ON kioskpad_events (terminal_id, at)",
                "CREATE INDEX kioskpad_events_time ON kioskpad_events (at)",
            ]
        ),
        (
            4,
            [
                // The site console: administrators, their sessions (token hashes), alert acknowledgements.
                """
                CREATE TABLE kioskpad_admins (
                    name TEXT PRIMARY KEY,
                    hash TEXT NOT NULL,
                    failed_logins INTEGER NOT NULL DEFAULT 0,
                    locked_until REAL,
                    totp_secret TEXT,
                    totp_last_step INTEGER,
                    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                )
                """,
                """
                CREATE TABLE kioskpad_console_sessions (
                    token_hash TEXT PRIMARY KEY,
                    admin_name TEXT NOT NULL,
                    csrf TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    idle_until REAL NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_console_sessions_admin ON kioskpad_console_sessions (admin_name)",
                """
                CREATE TABLE kioskpad_alert_acks (
                    terminal_id TEXT NOT NULL,
                    alert TEXT NOT NULL,
                    admin_name TEXT NOT NULL,
                    at REAL NOT NULL,
                    PRIMARY KEY (terminal_id, alert)
                )
                """,
                // Who entered: decisions by time, door and user; door events by type and time.
                "CREATE INDEX kioskpad_audit_decisions ON kioskpad_audit (id) WHERE json_extract(record, '$.decision') IN ('granted', 'denied')",
                """
                CREATE INDEX kioskpad_audit_decisions_door ON kioskpad_audit (json_extract(record, '$.terminal_id'), id)
                WHERE json_extract(record, '$.decision') IN ('granted', 'denied')
                """,
                """
                CREATE INDEX kioskpad_audit_decisions_user ON kioskpad_audit (json_extract(record, '$.user'), id)
                WHERE json_extract(record, '$.decision') IN ('granted', 'denied')
                """,
                "CREATE INDEX kioskpad_events_type_time ON kioskpad_events (type, at)",
            ]
        ),
        (
            5,
            [
                // Doors' credential replicas (POST /v1/credentials): a version every change of
                // who may enter raises (the triggers below), and the key replicas are signed with.
                "CREATE TABLE kioskpad_replica (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, signing_key TEXT)",
                "INSERT INTO kioskpad_replica (id, version) VALUES (1, 1)",
                "CREATE TRIGGER kioskpad_replica_users_insert AFTER INSERT ON kioskpad_users BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_users_update AFTER UPDATE OF name, kind, hash, enabled ON kioskpad_users BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_users_delete AFTER DELETE ON kioskpad_users BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_access_insert AFTER INSERT ON kioskpad_access BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_access_update AFTER UPDATE ON kioskpad_access BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_access_delete AFTER DELETE ON kioskpad_access BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_schedules_insert AFTER INSERT ON kioskpad_schedules BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_schedules_update AFTER UPDATE ON kioskpad_schedules BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_schedules_delete AFTER DELETE ON kioskpad_schedules BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_site_insert AFTER INSERT ON kioskpad_site BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_site_update AFTER UPDATE ON kioskpad_site BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_site_delete AFTER DELETE ON kioskpad_site BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_doors_insert AFTER INSERT ON kioskpad_doors BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_doors_update AFTER UPDATE ON kioskpad_doors BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
                "CREATE TRIGGER kioskpad_replica_doors_delete AFTER DELETE ON kioskpad_doors BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
            ]
        ),
        (
            6,
            [
                // Replica tags: a key made once, and each credential's tag under it (set when
                // its PIN or card is set), so a door offline checks about two hashes per attempt.
                "ALTER TABLE kioskpad_replica ADD COLUMN tag_key TEXT",
                "ALTER TABLE kioskpad_users ADD COLUMN replica_tag TEXT",
                "DROP TRIGGER kioskpad_replica_users_update",
                "CREATE TRIGGER kioskpad_replica_users_update AFTER UPDATE OF name, kind, hash, enabled, replica_tag ON kioskpad_users BEGIN UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1; END",
            ]
        ),
        (
            7,
            [
                // Nothing here: PostgreSQL's v7 brings its schema to this one (the users' name
                // index, the lockout history as text), so both end at the same version.
            ]
        ),
    ]

    /// The newest schema version this build knows.
    public static var latestVersion: Int { steps.last?.version ?? 0 }

    /// Applies the steps the file lacks, up to `version` (tests make an older schema with
    /// it); returns the versions applied (empty: up to date).
    @discardableResult
    public static func apply(on database: SQLiteVerifierDatabase, upTo version: Int = .max, hostZone: String = TimeZone.current.identifier) async throws
        -> [Int]
    {
        let path = database.path
        return try await database.write { sql in
            try await sql.execute(
                "CREATE TABLE IF NOT EXISTS kioskpad_schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
            )
            let applied = Set(
                try await sql.execute("SELECT version FROM kioskpad_schema_migrations").compactMap { $0.columns.first?.data.integer.map { Int($0) } })
            if let newest = applied.max(), newest > latestVersion {
                throw SQLiteVerifierDatabase.Failure(
                    description: "\(path) was written by a newer kioskpad (schema version \(newest); this one knows up to \(latestVersion)); upgrade kioskpad")
            }
            var done: [Int] = []
            for step in steps where !applied.contains(step.version) && step.version <= version {
                for statement in step.statements { try await sql.execute(statement) }
                try await sql.execute("INSERT INTO kioskpad_schema_migrations (version) VALUES (?)", [.int(Int64(step.version))])
                done.append(step.version)
            }
            // The site's zone: the host's, when the schema first has a place for it.
            if version >= 2 {
                try await sql.execute("INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', ?) ON CONFLICT (key) DO NOTHING", [.text(hostZone)])
            }
            return done
        }
    }
}
