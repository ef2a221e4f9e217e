import Foundation
import SQLKit

/// The site's schema: one list of numbered steps for both engines, applied in order, each
/// once, in one transaction that records the versions it brings. Applying them again changes
/// nothing; a database written by a newer kioskpad is refused. Every released step stays as
/// it was: where the two engines' histories differ the step says so, and every
/// version ends in the same tables, columns, keys and indexes on both.
public enum SiteMigrations {
    /// The newest schema version this build knows.
    public static var latestVersion: Int { steps.count }

    /// Applies the steps the database lacks, up to `version` (tests make an older schema
    /// with it); returns the versions applied (empty: up to date). `location` names the
    /// database in the error for a newer schema; `hostZone` becomes the site's zone when the
    /// schema first has a place for it.
    @discardableResult
    public static func apply(
        on database: any SiteDatabase, location: String, upTo version: Int = .max, hostZone: String = TimeZone.current.identifier
    ) async throws -> [Int] {
        let types = SchemaTypes(engine: database.engine)
        return try await database.write { sql in
            if database.engine == .postgres {
                // One instance at a time; released at commit. (SQLite: the file's one writer.)
                try await sql.raw("SELECT pg_advisory_xact_lock(7305001)").run()
            }
            try await sql.raw(
                "CREATE TABLE IF NOT EXISTS kioskpad_schema_migrations (version \(unsafeRaw: types.integer) PRIMARY KEY, applied_at \(unsafeRaw: types.now))"
            ).run()
            let applied = Set(try await sql.raw("SELECT version FROM kioskpad_schema_migrations").all().map { Int(try $0.integer("version")) })
            if let newest = applied.max(), newest > latestVersion {
                throw SiteStoreFailure(
                    "\(location) was written by a newer kioskpad (schema version \(newest); this one knows up to \(latestVersion)); upgrade kioskpad")
            }
            var done: [Int] = []
            for (index, step) in steps.enumerated() where !applied.contains(index + 1) && index + 1 <= version {
                for statement in step(types) { try await sql.raw(SQLQueryString(statement)).run() }
                try await sql.raw("INSERT INTO kioskpad_schema_migrations (version) VALUES (\(bind: Int64(index + 1)))").run()
                done.append(index + 1)
            }
            // Only when missing: on PostgreSQL even an insert that does nothing fires the
            // replica tables' trigger, and would move the version at every start.
            if version >= 2, try await sql.raw("SELECT 1 FROM kioskpad_site WHERE key = 'time_zone'").first() == nil {
                try await sql.raw("INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', \(bind: hostZone)) ON CONFLICT (key) DO NOTHING").run()
            }
            // The step that made the version a position wrote the entry it settles on (SQLite's
            // settle would write one of its own for the zone set above).
            if done.contains(replicaPositionVersion) { OpenWriteTransaction.joining(database)?.noteLoggedChange() }
            return done
        }
    }

    /// The schema version from which the replica's version is a change-log position.
    static let replicaPositionVersion = 24

    /// Version N is `steps[N - 1]`. Append new steps; never change a released one.
    static let steps: [@Sendable (SchemaTypes) -> [String]] = [
        { t in
            var statements = [
                """
                CREATE TABLE kioskpad_users (
                    id \(t.serial),
                    name \(t.text) NOT NULL,
                    kind \(t.text) NOT NULL CHECK (kind IN ('pin', 'duress', 'card')),
                    hash \(t.text) NOT NULL,
                    lookup_tag \(t.text),
                    lookup_key_id \(t.text),
                    totp_secret \(t.text),
                    totp_last_step \(t.bigint),
                    enabled \(t.flagOn),
                    created_at \(t.now),
                    CHECK (totp_secret IS NULL OR kind = 'pin')
                )
                """,
                "CREATE UNIQUE INDEX kioskpad_users_one_pin ON kioskpad_users (name) WHERE kind = 'pin'",
                "CREATE UNIQUE INDEX kioskpad_users_one_duress ON kioskpad_users (name) WHERE kind = 'duress'",
                "CREATE INDEX kioskpad_users_lookup_tag ON kioskpad_users (lookup_tag)",
                "CREATE INDEX kioskpad_users_lookup_key_id ON kioskpad_users (lookup_key_id)",
            ]
            // History: SQLite's version 1 had these two indexes; PostgreSQL's gained them in versions 2 and 7.
            statements += t.sqliteOnly([
                "CREATE INDEX kioskpad_users_name ON kioskpad_users (name)",
                "CREATE INDEX kioskpad_users_totp ON kioskpad_users (id) WHERE totp_secret IS NOT NULL",
            ])
            return statements
                + [
                    """
                    CREATE TABLE kioskpad_codes (
                        id \(t.serial),
                        user_name \(t.text) NOT NULL,
                        hash \(t.text) NOT NULL,
                        expires_at \(t.bigint) NOT NULL,
                        used_at \(t.bigint)
                    )
                    """,
                    "CREATE INDEX kioskpad_codes_live ON kioskpad_codes (expires_at) WHERE used_at IS NULL",
                    "CREATE TABLE kioskpad_replay (webhook_id \(t.text) PRIMARY KEY, expires_at \(t.bigint) NOT NULL)",
                    "CREATE INDEX kioskpad_replay_expires ON kioskpad_replay (expires_at)",
                    """
                    CREATE TABLE kioskpad_lockout (
                        terminal_id \(t.text) PRIMARY KEY,
                        failures \(t.engine == .sqlite ? "TEXT NOT NULL DEFAULT ''" : "double precision[] NOT NULL DEFAULT '{}'"),
                        streak \(t.integer) NOT NULL DEFAULT 0,
                        locked_until \(t.double)
                    )
                    """,
                    """
                    CREATE TABLE kioskpad_audit (
                        id \(t.serial),
                        at \(t.now),
                        instance \(t.text) NOT NULL,
                        record \(t.json) NOT NULL
                    )
                    """,
                ]
        },
        { t in
            // Who may enter where and when: the site's zone, named schedules, each user's rule
            // (absent: every door, always), doors' own secrets, codes for one door.
            [
                "CREATE TABLE kioskpad_site (key \(t.text) PRIMARY KEY, value \(t.text) NOT NULL)",
                "CREATE TABLE kioskpad_schedules (name \(t.text) PRIMARY KEY, spec \(t.text) NOT NULL)",
                "CREATE TABLE kioskpad_access (user_name \(t.text) PRIMARY KEY, rule \(t.text) NOT NULL, schedule \(t.text))",
                "CREATE INDEX kioskpad_access_schedule ON kioskpad_access (schedule)",
                """
                CREATE TABLE kioskpad_doors (
                    terminal_id \(t.text) PRIMARY KEY,
                    secret \(t.text) NOT NULL,
                    created_at \(t.now)
                )
                """,
                "ALTER TABLE kioskpad_codes ADD COLUMN door \(t.text)",
            ] + t.postgresOnly(["CREATE INDEX kioskpad_users_totp ON kioskpad_users (id) WHERE totp_secret IS NOT NULL"])
        },
        { t in
            // The journal records terminals forward (POST /v1/events), once each.
            [
                """
                CREATE TABLE kioskpad_events (
                    id \(t.text) PRIMARY KEY,
                    terminal_id \(t.text) NOT NULL,
                    type \(t.text) NOT NULL,
                    at \(t.double) NOT NULL,
                    seq \(t.bigint) NOT NULL,
                    record \(t.json) NOT NULL,
                    received_at \(t.now)
                )
                """,
                "CREATE INDEX kioskpad_events_door_time ON kioskpad_events (terminal_id, at)",
                "CREATE INDEX kioskpad_events_time ON kioskpad_events (at)",
            ]
        },
        { t in
            // The site console: administrators, their sessions (token hashes), alert
            // acknowledgements; who entered: decisions by time, door and user, door events by
            // type and time.
            let decided = "WHERE \(t.dialect.jsonField("record", "decision")) IN ('granted', 'denied')"
            return [
                """
                CREATE TABLE kioskpad_admins (
                    name \(t.text) PRIMARY KEY,
                    hash \(t.text) NOT NULL,
                    failed_logins \(t.integer) NOT NULL DEFAULT 0,
                    locked_until \(t.double),
                    totp_secret \(t.text),
                    totp_last_step \(t.bigint),
                    created_at \(t.now)
                )
                """,
                """
                CREATE TABLE kioskpad_console_sessions (
                    token_hash \(t.text) PRIMARY KEY,
                    admin_name \(t.text) NOT NULL,
                    csrf \(t.text) NOT NULL,
                    created_at \(t.double) NOT NULL,
                    expires_at \(t.double) NOT NULL,
                    idle_until \(t.double) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_console_sessions_admin ON kioskpad_console_sessions (admin_name)",
                """
                CREATE TABLE kioskpad_alert_acks (
                    terminal_id \(t.text) NOT NULL,
                    alert \(t.text) NOT NULL,
                    admin_name \(t.text) NOT NULL,
                    at \(t.double) NOT NULL,
                    PRIMARY KEY (terminal_id, alert)
                )
                """,
                "CREATE INDEX kioskpad_audit_decisions ON kioskpad_audit (id) \(decided)",
                "CREATE INDEX kioskpad_audit_decisions_door ON kioskpad_audit (\(t.indexed(t.dialect.jsonField("record", "terminal_id"))), id) \(decided)",
                "CREATE INDEX kioskpad_audit_decisions_user ON kioskpad_audit (\(t.indexed(t.dialect.jsonField("record", "user"))), id) \(decided)",
                "CREATE INDEX kioskpad_events_type_time ON kioskpad_events (type, at)",
            ]
        },
        { t in
            // Doors' credential replicas (POST /v1/credentials): a version every change of who
            // may enter raises (triggers), and the key replicas are signed with.
            [
                "CREATE TABLE kioskpad_replica (id \(t.integer) PRIMARY KEY CHECK (id = 1), version \(t.bigint) NOT NULL, signing_key \(t.text))",
                "INSERT INTO kioskpad_replica (id, version) VALUES (1, 1)",
            ] + t.replicaVersionTriggers(usersColumns: "name, kind, hash, enabled")
        },
        { t in
            // Replica tags: a key made once, and each credential's tag under it (set when its
            // PIN or card is set), so a door offline checks about two hashes per attempt.
            [
                "ALTER TABLE kioskpad_replica ADD COLUMN tag_key \(t.text)",
                "ALTER TABLE kioskpad_users ADD COLUMN replica_tag \(t.text)",
            ] + t.replacingUsersTrigger(usersColumns: "name, kind, hash, enabled, replica_tag")
        },
        { t in
            // PostgreSQL's schema brought to SQLite's: the users' name index, and the lockout
            // history as LockoutHistory text (it was an array). Nothing on SQLite.
            t.postgresOnly([
                "CREATE INDEX IF NOT EXISTS kioskpad_users_name ON kioskpad_users (name)",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures DROP DEFAULT",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures TYPE text USING array_to_string(failures, ',')",
                "ALTER TABLE kioskpad_lockout ALTER COLUMN failures SET DEFAULT ''",
            ])
        },
        { t in
            // Holidays (a date, the part of it, a schedule in place of users' own, a label),
            // lockdown or release for the site ('*') or one door, with who set it, and doors'
            // unlock schedules (held unlocked in opening hours, perhaps from the first staff entry).
            [
                """
                CREATE TABLE kioskpad_holidays (
                    day \(t.text) PRIMARY KEY,
                    rule \(t.text) NOT NULL,
                    schedule \(t.text),
                    label \(t.text) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_holidays_schedule ON kioskpad_holidays (schedule)",
                """
                CREATE TABLE kioskpad_door_modes (
                    scope \(t.text) PRIMARY KEY,
                    mode \(t.text) NOT NULL CHECK (mode IN ('normal', 'lockdown', 'release')),
                    set_by \(t.text) NOT NULL,
                    set_at \(t.double) NOT NULL
                )
                """,
                """
                CREATE TABLE kioskpad_door_unlock (
                    terminal_id \(t.text) PRIMARY KEY,
                    rule \(t.text) NOT NULL,
                    schedule \(t.text) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_door_unlock_schedule ON kioskpad_door_unlock (schedule)",
            ] + t.replicaVersionTriggers(table: "kioskpad_holidays") + t.replicaVersionTriggers(table: "kioskpad_door_modes")
                + t.replicaVersionTriggers(table: "kioskpad_door_unlock")
        },
        { t in
            // Doors that ask for a card and then its holder's PIN: always, or in a schedule's
            // windows; a code's purpose: entry (it opens a door) or enrol (a PIN chosen at one).
            [
                "ALTER TABLE kioskpad_codes ADD COLUMN purpose \(t.text) NOT NULL DEFAULT 'entry' CHECK (purpose IN ('entry', 'enrol'))",
                """
                CREATE TABLE kioskpad_door_card_pin (
                    terminal_id \(t.text) PRIMARY KEY,
                    rule \(t.text) NOT NULL,
                    schedule \(t.text)
                )
                """,
                "CREATE INDEX kioskpad_door_card_pin_schedule ON kioskpad_door_card_pin (schedule)",
            ] + t.replicaVersionTriggers(table: "kioskpad_door_card_pin")
        },
        { t in
            // API tokens (`/api/v1/`): the SHA-256 of each, never the token; its scopes
            // (comma-separated), who made it, when, until when, revoked, last used.
            [
                """
                CREATE TABLE kioskpad_api_tokens (
                    name \(t.text) PRIMARY KEY,
                    token_hash \(t.text) NOT NULL,
                    scopes \(t.text) NOT NULL,
                    created_by \(t.text) NOT NULL,
                    created_at \(t.double) NOT NULL,
                    expires_at \(t.double),
                    revoked_at \(t.double),
                    last_used_at \(t.double)
                )
                """,
                "CREATE UNIQUE INDEX kioskpad_api_tokens_hash ON kioskpad_api_tokens (token_hash)",
            ]
        },
        { t in
            // Webhooks out: subscriptions (the secret is kept, as a door's is: it signs), and the
            // queue of deliveries, one row per message and subscription, sent in id order per
            // subscription; `lease_until` is a sender's claim, so one instance sends each try.
            [
                """
                CREATE TABLE kioskpad_webhooks (
                    name \(t.text) PRIMARY KEY,
                    url \(t.text) NOT NULL,
                    events \(t.text) NOT NULL,
                    secret \(t.text) NOT NULL,
                    allow_http \(t.integer) NOT NULL DEFAULT 0,
                    created_by \(t.text) NOT NULL,
                    created_at \(t.double) NOT NULL
                )
                """,
                """
                CREATE TABLE kioskpad_webhook_deliveries (
                    id \(t.serial),
                    subscription \(t.text) NOT NULL,
                    message_id \(t.text) NOT NULL,
                    type \(t.text) NOT NULL,
                    body \(t.text) NOT NULL,
                    created_at \(t.double) NOT NULL,
                    attempts \(t.integer) NOT NULL DEFAULT 0,
                    next_attempt_at \(t.double) NOT NULL,
                    lease_until \(t.double),
                    state \(t.text) NOT NULL DEFAULT 'pending',
                    last_error \(t.text),
                    finished_at \(t.double)
                )
                """,
                "CREATE INDEX kioskpad_webhook_deliveries_queue ON kioskpad_webhook_deliveries (subscription, id) WHERE state = 'pending'",
                "CREATE UNIQUE INDEX kioskpad_webhook_deliveries_message ON kioskpad_webhook_deliveries (subscription, message_id)",
                "CREATE INDEX kioskpad_webhook_deliveries_finished ON kioskpad_webhook_deliveries (finished_at)",
            ]
        },
        { t in
            // The management API's Idempotency-Key: a changing request's answer kept per token
            // and key for a day, so a client's retry gets it again instead of a second change;
            // `status` is null while the first request is still being answered.
            [
                """
                CREATE TABLE kioskpad_api_idempotency (
                    token \(t.text) NOT NULL,
                    idempotency_key \(t.text) NOT NULL,
                    fingerprint \(t.text) NOT NULL,
                    status \(t.integer),
                    body \(t.text),
                    created_at \(t.double) NOT NULL,
                    PRIMARY KEY (token, idempotency_key)
                )
                """,
                "CREATE INDEX kioskpad_api_idempotency_created ON kioskpad_api_idempotency (created_at)",
            ]
        },
        { t in
            // Door groups, access levels and user groups: one row each, its fields as the
            // users file writes them (`@door_group`, `@level`, `@group`); users name levels and
            // groups in their rule. Every change moves the replica's version.
            [
                """
                CREATE TABLE kioskpad_access_groups (
                    kind \(t.text) NOT NULL CHECK (kind IN ('door_group', 'level', 'user_group')),
                    name \(t.text) NOT NULL,
                    definition \(t.text) NOT NULL,
                    PRIMARY KEY (kind, name)
                )
                """
            ] + t.replicaVersionTriggers(table: "kioskpad_access_groups")
        },
        { t in
            // Visitor passes: a code's hash for a visitor and their host, its doors, levels,
            // schedule and window as a user's rule says them, and its uses (max_uses null:
            // unlimited in the window). `ends_at` (the window's end as an instant when it
            // was issued) keeps the passes an attempt hashes to the live ones. Decided by the
            // site only, so no replica trigger.
            [
                """
                CREATE TABLE kioskpad_visitor_passes (
                    id \(t.serial),
                    visitor \(t.text) NOT NULL,
                    host \(t.text) NOT NULL,
                    hash \(t.text) NOT NULL,
                    rule \(t.text) NOT NULL,
                    max_uses \(t.integer) CHECK (max_uses IS NULL OR max_uses > 0),
                    uses \(t.integer) NOT NULL DEFAULT 0,
                    ends_at \(t.bigint) NOT NULL,
                    issued_at \(t.bigint) NOT NULL,
                    issued_by \(t.text) NOT NULL,
                    revoked_at \(t.bigint),
                    last_used_at \(t.bigint),
                    last_door \(t.text)
                )
                """,
                "CREATE INDEX kioskpad_visitor_passes_live ON kioskpad_visitor_passes (ends_at) WHERE revoked_at IS NULL",
            ]
        },
        { t in
            // Cards enrolled by presenting them: a door armed to learn the next unknown card
            // for a user (one row per door, its result kept), and the unknown cards read
            // lately (the card's hash and tags, never its number), to be claimed for a user.
            [
                """
                CREATE TABLE kioskpad_card_learning (
                    door \(t.text) PRIMARY KEY,
                    user_name \(t.text) NOT NULL,
                    armed_by \(t.text) NOT NULL,
                    armed_at \(t.bigint) NOT NULL,
                    expires_at \(t.bigint) NOT NULL,
                    result \(t.text),
                    result_at \(t.bigint)
                )
                """,
                """
                CREATE TABLE kioskpad_unknown_cards (
                    id \(t.serial),
                    door \(t.text) NOT NULL,
                    seen_at \(t.bigint) NOT NULL,
                    hash \(t.text) NOT NULL,
                    lookup_tag \(t.text),
                    replica_tag \(t.text),
                    digits \(t.integer) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_unknown_cards_door ON kioskpad_unknown_cards (door, seen_at)",
            ]
        },
        { t in
            // Doors waiting to be adopted: an announcement (the door's public key, the nonce the
            // site gave it, the code's public tag), and once a code was typed, the sealed delivery
            // (never the code, never the door's secret in clear: that is in kioskpad_doors).
            [
                """
                CREATE TABLE kioskpad_pairing (
                    id \(t.text) PRIMARY KEY,
                    door_key \(t.text) NOT NULL,
                    nonce \(t.text) NOT NULL,
                    tag \(t.text) NOT NULL,
                    address \(t.text) NOT NULL,
                    hardware \(t.text) NOT NULL,
                    announced_at \(t.bigint) NOT NULL,
                    expires_at \(t.bigint) NOT NULL,
                    state \(t.text) NOT NULL,
                    terminal_id \(t.text),
                    encapsulated_key \(t.text),
                    ciphertext \(t.text),
                    failures \(t.integer) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_pairing_expires ON kioskpad_pairing (expires_at)",
            ]
        },
        { t in
            // A door's key kept through rotation and retirement: the next secret while the
            // door has not signed with it yet; the one it replaced and when (a request the
            // door signed before then is still taken for a few minutes); when it was adopted
            // (only an adopted door picks up a new secret by itself) and when it was retired
            // (refused from then on).
            [
                "ALTER TABLE kioskpad_doors ADD COLUMN next_secret \(t.text)",
                "ALTER TABLE kioskpad_doors ADD COLUMN previous_secret \(t.text)",
                "ALTER TABLE kioskpad_doors ADD COLUMN replaced_at \(t.bigint)",
                "ALTER TABLE kioskpad_doors ADD COLUMN adopted_at \(t.bigint)",
                "ALTER TABLE kioskpad_doors ADD COLUMN retired_at \(t.bigint)",
            ]
        },
        { t in
            // Settings a site gives its adopted doors: the site's (scope '*') and each door's own,
            // a version raised by every change, and what each door said of them at its check-in.
            // Tables of their own, so a door's report never raises the replica's version.
            [
                "CREATE TABLE kioskpad_settings (scope \(t.text) PRIMARY KEY, body \(t.text) NOT NULL)",
                "CREATE TABLE kioskpad_settings_version (id \(t.integer) PRIMARY KEY CHECK (id = 1), version \(t.bigint) NOT NULL)",
                "INSERT INTO kioskpad_settings_version (id, version) VALUES (1, 0)",
                """
                CREATE TABLE kioskpad_door_settings_state (
                    terminal_id \(t.text) PRIMARY KEY,
                    running \(t.bigint) NOT NULL,
                    refused_version \(t.bigint),
                    refused_reason \(t.text),
                    reported_at \(t.bigint) NOT NULL
                )
                """,
            ]
        },
        { t in
            // Rotating the replica key: the next key while a rotation is under way, and the
            // keys each adopted door said at its check-in that it trusts.
            [
                "ALTER TABLE kioskpad_replica ADD COLUMN next_signing_key \(t.text)",
                "ALTER TABLE kioskpad_door_settings_state ADD COLUMN replica_keys \(t.text)",
            ]
        },
        { t in
            // The answer each decided attempt got, kept with its request's id for the replay
            // window: a door's retry of that request (its first answer lost) gets it again.
            ["ALTER TABLE kioskpad_replay ADD COLUMN answer \(t.text)"]
        },
        { t in
            // Lookup tags of codes and visitor passes (the site's lookup key, as PIN lines have):
            // a code typed at a door is hashed against its tag's rows and the untagged ones
            // (issued before the key, or under an earlier one), not every live code and pass.
            [
                "ALTER TABLE kioskpad_codes ADD COLUMN lookup_tag \(t.text)",
                "ALTER TABLE kioskpad_codes ADD COLUMN lookup_key_id \(t.text)",
                "CREATE INDEX kioskpad_codes_lookup_tag ON kioskpad_codes (lookup_tag)",
                "CREATE INDEX kioskpad_codes_lookup_key_id ON kioskpad_codes (lookup_key_id)",
                "ALTER TABLE kioskpad_visitor_passes ADD COLUMN lookup_tag \(t.text)",
                "ALTER TABLE kioskpad_visitor_passes ADD COLUMN lookup_key_id \(t.text)",
                "CREATE INDEX kioskpad_visitor_passes_lookup_tag ON kioskpad_visitor_passes (lookup_tag)",
                "CREATE INDEX kioskpad_visitor_passes_lookup_key_id ON kioskpad_visitor_passes (lookup_key_id)",
                // Until when a started rotation keeps the door's current secret good.
                "ALTER TABLE kioskpad_doors ADD COLUMN rotation_deadline \(t.bigint)",
                // Bounded webhook queues: each delivery's size, summed per subscription from an
                // index, and the messages a full queue dropped.
                "ALTER TABLE kioskpad_webhook_deliveries ADD COLUMN body_bytes \(t.bigint) NOT NULL DEFAULT 0",
                "UPDATE kioskpad_webhook_deliveries SET body_bytes = LENGTH(body)",
                "CREATE INDEX kioskpad_webhook_deliveries_pending ON kioskpad_webhook_deliveries (subscription, body_bytes) WHERE state = 'pending'",
                "ALTER TABLE kioskpad_webhooks ADD COLUMN dropped \(t.bigint) NOT NULL DEFAULT 0",
                // A subscription's run of failed tries, and when it was disabled for it.
                "ALTER TABLE kioskpad_webhooks ADD COLUMN failing_since \(t.double)",
                "ALTER TABLE kioskpad_webhooks ADD COLUMN disabled_at \(t.double)",
                // The group a waiting door's address counts in (an IPv6 address's /64).
                "ALTER TABLE kioskpad_pairing ADD COLUMN address_group \(t.text)",
            ]
        },
        { t in
            // Pairing by a password-authenticated exchange (CPace): the door's message and
            // session id from its announcement, the site's message beside the delivery; results
            // signed by the door. An
            // announcement of the earlier pairing has neither and cannot be answered: dropped
            // (a door waits 15 minutes at most, and announces again).
            [
                "DELETE FROM kioskpad_doors WHERE terminal_id IN (SELECT terminal_id FROM kioskpad_pairing WHERE state = 'delivered' AND terminal_id IS NOT NULL)",
                "DELETE FROM kioskpad_pairing WHERE state <> 'paired'",
                "ALTER TABLE kioskpad_pairing ADD COLUMN pake_message \(t.text)",
                "ALTER TABLE kioskpad_pairing ADD COLUMN pake_sid \(t.text)",
                "ALTER TABLE kioskpad_pairing ADD COLUMN site_message \(t.text)",
                // The door's Ed25519 key its result messages are signed with.
                "ALTER TABLE kioskpad_pairing ADD COLUMN result_key \(t.text)",
            ]
        },
        { t in
            // The change log: an entry per administrator's change, written in the change's own
            // transaction with its audit record; `seq` is the site-wide position (PostgreSQL:
            // the database's sequence, so instances agree).
            [
                """
                CREATE TABLE kioskpad_change_log (
                    seq \(t.serial),
                    at \(t.double) NOT NULL,
                    kind \(t.text) NOT NULL,
                    subject \(t.text) NOT NULL,
                    action \(t.text) NOT NULL,
                    instance \(t.text) NOT NULL
                )
                """,
                "CREATE INDEX kioskpad_change_log_subject ON kioskpad_change_log (kind, subject)",
            ]
        },
        { t in
            // The replica's version becomes a change-log position: a write that changes who
            // may enter marks its transaction pending, and its commit moves the version to the
            // transaction's last entry (one of its own for a door's write). Positions start
            // above the version doors hold, which they never take back.
            t.replicaVersionAsChangeLogPosition()
        },
        { t in
            // PostgreSQL's replica triggers per row: a statement that changes nothing moves nothing.
            t.replicaTriggersPerRow()
        },
        { t in
            // Remote commands (unlock, lock) waiting for their door's push request: kept after
            // (the console lists the newest), never part of a replica.
            [
                """
                CREATE TABLE kioskpad_door_commands (
                    id \(t.serial),
                    terminal_id \(t.text) NOT NULL,
                    action \(t.text) NOT NULL,
                    seconds \(t.integer),
                    reason \(t.text) NOT NULL,
                    admin \(t.text) NOT NULL,
                    issued_at \(t.double) NOT NULL,
                    expires_at \(t.double) NOT NULL,
                    delivered_at \(t.double),
                    result \(t.text)
                )
                """,
                "CREATE INDEX kioskpad_door_commands_terminal ON kioskpad_door_commands (terminal_id, id)",
                "CREATE INDEX kioskpad_door_commands_expires ON kioskpad_door_commands (expires_at)",
            ]
        },
        { t in
            // Operators' roles: every administrator could do everything before, so each is
            // an owner after the upgrade; a token keeps what its scopes gave (administrator).
            [
                "ALTER TABLE kioskpad_admins ADD COLUMN role \(t.text) NOT NULL DEFAULT 'owner'",
                // The door groups a guard is limited to, comma-separated (NULL: every door).
                "ALTER TABLE kioskpad_admins ADD COLUMN door_groups \(t.text)",
                "ALTER TABLE kioskpad_api_tokens ADD COLUMN role \(t.text) NOT NULL DEFAULT 'administrator'",
            ]
        },
        { t in
            // Administrators who sign in through the organisation's identity provider: the
            // provider's issuer (NULL: a local account with a password).
            ["ALTER TABLE kioskpad_admins ADD COLUMN provider \(t.text)"]
        },
    ]
}
