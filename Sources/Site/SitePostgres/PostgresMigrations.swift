import Foundation
import Logging
import PostgresNIO

/// The verifier's schema, as numbered steps applied in order, each once, in one
/// transaction that records the versions it brings. An advisory lock makes instances that
/// start together apply them one at a time; applying them again changes nothing.
public enum PostgresMigrations {
    /// Each step's version and statements. Append new steps; never change a released one.
    static let steps: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE kioskpad_users (
                    id bigserial PRIMARY KEY,
                    name text NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('pin', 'duress', 'card')),
                    hash text NOT NULL,
                    lookup_tag text,
                    lookup_key_id text,
                    totp_secret text,
                    totp_last_step bigint,
                    enabled boolean NOT NULL DEFAULT true,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    CHECK (totp_secret IS NULL OR kind = 'pin')
                )
                """,
                "CREATE UNIQUE INDEX kioskpad_users_one_pin ON kioskpad_users (name) WHERE kind = 'pin'",
                "CREATE UNIQUE INDEX kioskpad_users_one_duress ON kioskpad_users (name) WHERE kind = 'duress'",
                "CREATE INDEX kioskpad_users_lookup_tag ON kioskpad_users (lookup_tag)",
                "CREATE INDEX kioskpad_users_lookup_key_id ON kioskpad_users (lookup_key_id)",
                """
                CREATE TABLE kioskpad_codes (
                    id bigserial PRIMARY KEY,
                    user_name text NOT NULL,
                    hash text NOT NULL,
                    expires_at bigint NOT NULL,
                    used_at bigint
                )
                """,
                "CREATE INDEX kioskpad_codes_live ON kioskpad_codes (expires_at) WHERE used_at IS NULL",
                "CREATE TABLE kioskpad_replay (webhook_id text PRIMARY KEY, expires_at bigint NOT NULL)",
                "CREATE INDEX kioskpad_replay_expires ON kioskpad_replay (expires_at)",
                """
                CREATE TABLE kioskpad_lockout (
                    terminal_id text PRIMARY KEY,
                    failures double precision[] NOT NULL DEFAULT '{}',
                    streak integer NOT NULL DEFAULT 0,
                    locked_until double precision
                )
                """,
                """
                CREATE TABLE kioskpad_audit (
                    id bigserial PRIMARY KEY,
                    at timestamptz NOT NULL DEFAULT now(),
                    instance text NOT NULL,
                    record jsonb NOT NULL
                )
                """,
            ]
        ),
        (
            2,
            [
                // Who may enter where and when (as in SQLite's v2), and the index for TOTP users.
                "CREATE TABLE kioskpad_site (key text PRIMARY KEY, value text NOT NULL)",
                "CREATE TABLE kioskpad_schedules (name text PRIMARY KEY, spec text NOT NULL)",
                "CREATE TABLE kioskpad_access (user_name text PRIMARY KEY, rule text NOT NULL, schedule text)",
                "CREATE INDEX kioskpad_access_schedule ON kioskpad_access (schedule)",
                "CREATE TABLE kioskpad_doors (terminal_id text PRIMARY KEY, secret text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
                "ALTER TABLE kioskpad_codes ADD COLUMN door text",
                "CREATE INDEX kioskpad_users_totp ON kioskpad_users (id) WHERE totp_secret IS NOT NULL",
            ]
        ),
        (
            3,
            [
                // The journal records terminals forward (POST /v1/events), once each.
                """
                CREATE TABLE kioskpad_events (
                    id text PRIMARY KEY,
                    terminal_id text NOT NULL,
                    type text NOT NULL,
                    at double precision NOT NULL,
                    seq bigint NOT NULL,
                    record jsonb NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT now()
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
                    name text PRIMARY KEY,
                    hash text NOT NULL,
                    failed_logins integer NOT NULL DEFAULT 0,
                    locked_until double precision,
                    totp_secret text,
                    totp_last_step bigint,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE kioskpad_console_sessions (
                    token_hash text PRIMARY KEY,
                    admin_name text NOT NULL,
                    csrf text NOT NULL,
                    created_at double precision NOT NULL,
                    expires_at double precision NOT NULL,
                    idle_until double precision NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_console_sessions_admin ON kioskpad_console_sessions (admin_name)",
                """
                CREATE TABLE kioskpad_alert_acks (
                    terminal_id text NOT NULL,
                    alert text NOT NULL,
                    admin_name text NOT NULL,
                    at double precision NOT NULL,
                    PRIMARY KEY (terminal_id, alert)
                )
                """,
                // Who entered: decisions by time, door and user; door events by type and time.
                "CREATE INDEX kioskpad_audit_decisions ON kioskpad_audit (id) WHERE record->>'decision' IN ('granted', 'denied')",
                "CREATE INDEX kioskpad_audit_decisions_door ON kioskpad_audit ((record->>'terminal_id'), id) WHERE record->>'decision' IN ('granted', 'denied')",
                "CREATE INDEX kioskpad_audit_decisions_user ON kioskpad_audit ((record->>'user'), id) WHERE record->>'decision' IN ('granted', 'denied')",
                "CREATE INDEX kioskpad_events_type_time ON kioskpad_events (type, at)",
            ]
        ),
        (
            5,
            [
                // Doors' credential replicas (POST /v1/credentials): a version every change of
                // who may enter raises (the triggers below), and the key replicas are signed with.
                "CREATE TABLE kioskpad_replica (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL, signing_key text)",
                "INSERT INTO kioskpad_replica (id, version) VALUES (1, 1)",
                """
                CREATE FUNCTION kioskpad_replica_bump() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1;
                    RETURN NULL;
                END
                $$
                """,
                "CREATE TRIGGER kioskpad_replica_users AFTER INSERT OR DELETE OR UPDATE OF name, kind, hash, enabled ON kioskpad_users FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
                "CREATE TRIGGER kioskpad_replica_access AFTER INSERT OR UPDATE OR DELETE ON kioskpad_access FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
                "CREATE TRIGGER kioskpad_replica_schedules AFTER INSERT OR UPDATE OR DELETE ON kioskpad_schedules FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
                "CREATE TRIGGER kioskpad_replica_site AFTER INSERT OR UPDATE OR DELETE ON kioskpad_site FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
                "CREATE TRIGGER kioskpad_replica_doors AFTER INSERT OR UPDATE OR DELETE ON kioskpad_doors FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
            ]
        ),
        (
            6,
            [
                // Replica tags: a key made once, and each credential's tag under it (set when
                // its PIN or card is set), so a door offline checks about two hashes per attempt.
                "ALTER TABLE kioskpad_replica ADD COLUMN tag_key text",
                "ALTER TABLE kioskpad_users ADD COLUMN replica_tag text",
                "DROP TRIGGER kioskpad_replica_users ON kioskpad_users",
                "CREATE TRIGGER kioskpad_replica_users AFTER INSERT OR DELETE OR UPDATE OF name, kind, hash, enabled, replica_tag ON kioskpad_users FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()",
            ]
        ),
        (
            7,
            [
                // The same schema as SQLite's: the users' name index SQLite has had since v1,
                // and the lockout history as LockoutHistory text (it was an array here).
                "CREATE INDEX IF NOT EXISTS kioskpad_users_name ON kioskpad_users (name)",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures DROP DEFAULT",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures TYPE text USING array_to_string(failures, ',')",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures SET DEFAULT ''",
            ]
        ),
    ]

    /// The newest schema version this build knows.
    public static var latestVersion: Int { steps.last?.version ?? 0 }

    /// Applies the steps the database lacks, up to `version` (tests make an older schema
    /// with it); returns the versions applied (empty: up to date). Refuses a database whose schema is newer than this build.
    @discardableResult
    public static func apply(on database: PostgresVerifierDatabase, upTo version: Int = .max, hostZone: String = TimeZone.current.identifier) async throws
        -> [Int]
    {
        let logger = database.logger
        return try await database.transaction { connection in
            // One instance at a time; released at commit.
            try await connection.query("SELECT pg_advisory_xact_lock(7305001)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS kioskpad_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM kioskpad_schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            if let newest = applied.max(), newest > latestVersion {
                throw PostgresVerifierDatabase.Failure(
                    description: "the database's schema is version \(newest), newer than this kioskpad knows (\(latestVersion)); upgrade kioskpad")
            }
            var done: [Int] = []
            for step in steps where !applied.contains(step.version) && step.version <= version {
                for statement in step.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO kioskpad_schema_migrations (version) VALUES (\(step.version))", logger: logger)
                done.append(step.version)
            }
            // The site's zone: the host's, when the schema first has a place for it.
            if version >= 2 {
                try await connection.query(
                    "INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', \(hostZone)) ON CONFLICT (key) DO NOTHING", logger: logger)
            }
            return done
        }
    }
}
