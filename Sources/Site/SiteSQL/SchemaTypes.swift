import SiteCore

/// Column types and the statements of the schema that each engine spells its own way
/// (``SiteMigrations``). SQLite's spellings are the ones its released steps used.
struct SchemaTypes: Sendable {
    let engine: SiteEngine
    var dialect: SiteDialect { SiteDialect(engine: engine) }

    private func pick(_ sqlite: String, _ postgres: String) -> String {
        engine == .sqlite ? sqlite : postgres
    }

    /// A row id the database assigns, never reused.
    var serial: String { pick("INTEGER PRIMARY KEY AUTOINCREMENT", "bigserial PRIMARY KEY") }
    var text: String { pick("TEXT", "text") }
    var integer: String { pick("INTEGER", "integer") }
    var bigint: String { pick("INTEGER", "bigint") }
    var double: String { pick("REAL", "double precision") }
    /// A JSON object (PostgreSQL: jsonb, which its indexes read).
    var json: String { pick("TEXT", "jsonb") }
    /// A flag, set unless said otherwise (SQLite keeps it as 0 or 1).
    var flagOn: String { pick("INTEGER NOT NULL DEFAULT 1", "boolean NOT NULL DEFAULT true") }
    /// When the row was made (SQLite: ISO 8601 text to the millisecond, UTC).
    var now: String { pick("TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))", "timestamptz NOT NULL DEFAULT now()") }

    /// An expression as an index's key: PostgreSQL wants it in parentheses, SQLite's released
    /// steps wrote it bare.
    func indexed(_ expression: String) -> String { pick(expression, "(\(expression))") }

    func sqliteOnly(_ statements: [String]) -> [String] { engine == .sqlite ? statements : [] }
    func postgresOnly(_ statements: [String]) -> [String] { engine == .postgres ? statements : [] }

    /// The tables whose changes change who may enter, and so the replica's version.
    private static let replicaTables = ["kioskpad_access", "kioskpad_schedules", "kioskpad_site", "kioskpad_doors"]
    /// The tables added after version 5 whose rows change who may enter.
    private static let laterReplicaTables = [
        "kioskpad_holidays", "kioskpad_door_modes", "kioskpad_door_unlock", "kioskpad_door_card_pin", "kioskpad_access_groups",
    ]
    /// The users' columns a replica carries, as schema version 6 left them.
    private static let usersReplicaColumns = "name, kind, hash, enabled, replica_tag"
    /// What a trigger did up to schema version 23: the version counted changes.
    private static let bump = "UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1"
    /// What a trigger does from version 24: the open transaction changed who may enter, and
    /// its commit moves the version to a change-log position (``ReplicaPosition``).
    private var markPending: String {
        pick(
            "UPDATE kioskpad_replica SET pending = 1 WHERE id = 1 AND pending = 0",
            // The change log's order lock first, as every writer of the replica row takes it (SiteDialect.changeLogOrder).
            "PERFORM pg_advisory_xact_lock(7305003); UPDATE kioskpad_replica SET pending = true WHERE id = 1 AND NOT pending")
    }

    /// Triggers that raise the replica's version on every change of who may enter (users:
    /// only changes of `usersColumns`). SQLite: a trigger per table and change, per row;
    /// PostgreSQL: one function, a trigger per table, per statement.
    func replicaVersionTriggers(usersColumns: String) -> [String] {
        guard engine == .postgres else {
            return sqliteUsersTriggers(usersColumns, body: Self.bump) + Self.replicaTables.flatMap { sqliteTriggers($0, body: Self.bump) }
        }
        return [postgresTriggerFunction(body: Self.bump, replacing: false), postgresUsersTrigger(usersColumns)]
            + Self.replicaTables.map(postgresTrigger)
    }

    /// Triggers that raise the replica's version on every change of `table` (a table added
    /// after version 5 whose rows change who may enter); the PostgreSQL function is version 5's.
    func replicaVersionTriggers(table: String) -> [String] {
        engine == .postgres ? [postgresTrigger(table)] : sqliteTriggers(table, body: Self.bump)
    }

    /// The users' update trigger again, watching `usersColumns`.
    func replacingUsersTrigger(usersColumns: String) -> [String] {
        engine == .sqlite
            ? [
                "DROP TRIGGER kioskpad_replica_users_update",
                sqliteTrigger("kioskpad_replica_users_update", "UPDATE OF \(usersColumns)", "kioskpad_users", Self.bump),
            ]
            : ["DROP TRIGGER kioskpad_replica_users ON kioskpad_users", postgresUsersTrigger(usersColumns)]
    }

    /// Schema version 24: the replica's version becomes a change-log position. The triggers
    /// mark the transaction pending instead of counting; the change log's positions start
    /// above every version a door may hold (a door refuses a lower one), and one entry,
    /// `schema_upgrade`, gives the version its first position. PostgreSQL settles at commit
    /// in the database; SQLite in ``ReplicaPosition``.
    func replicaVersionAsChangeLogPosition() -> [String] {
        let floor = "\(pick("max", "greatest"))((SELECT version FROM kioskpad_replica WHERE id = 1), COALESCE((SELECT max(seq) FROM kioskpad_change_log), 0))"
        let upgradeEntry = "\(ChangedKind.replica.rawValue)', '', '\(ChangeCause.schemaUpgrade.rawValue)', ''"
        let settleVersion = "UPDATE kioskpad_replica SET version = (SELECT max(seq) FROM kioskpad_change_log) WHERE id = 1"
        guard engine == .postgres else {
            let tables: [String] = ["kioskpad_users"] + Self.replicaTables + Self.laterReplicaTables
            // One statement list built in steps: Debian's Swift 6.2.3 gave up type-checking it
            // as one expression of five `+` (scripts/check-debian-swift.sh).
            var statements: [String] = [
                "ALTER TABLE kioskpad_replica ADD COLUMN pending INTEGER NOT NULL DEFAULT 0",
                // PostgreSQL's column, for one schema; SQLite's settle knows its transaction's entries.
                "ALTER TABLE kioskpad_change_log ADD COLUMN tx INTEGER NOT NULL DEFAULT 0",
            ]
            for table in tables {
                for event in ["insert", "update", "delete"] { statements.append("DROP TRIGGER \(Self.triggerName(table))_\(event)") }
            }
            statements += sqliteUsersTriggers(Self.usersReplicaColumns, body: markPending)
            for table in Self.replicaTables + Self.laterReplicaTables { statements += sqliteTriggers(table, body: markPending) }
            statements.append(
                "INSERT INTO kioskpad_change_log (seq, at, kind, subject, action, instance) SELECT \(floor) + 1, (julianday('now') - 2440587.5) * 86400.0, '\(upgradeEntry)"
            )
            statements.append(settleVersion)
            return statements
        }
        return [
            "ALTER TABLE kioskpad_replica ADD COLUMN pending boolean NOT NULL DEFAULT false",
            // The transaction that wrote an entry (txid_current() is the top-level one, in a savepoint too).
            "ALTER TABLE kioskpad_change_log ADD COLUMN tx bigint NOT NULL DEFAULT txid_current()",
            postgresTriggerFunction(body: markPending, replacing: true),
            """
            CREATE FUNCTION kioskpad_replica_settle() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                position bigint;
            BEGIN
                PERFORM pg_advisory_xact_lock(7305003);
                -- This transaction's entries; at or after the version it found (the upgrade sets
                -- the version to its own entry, then may change who may enter).
                SELECT max(seq) INTO position FROM kioskpad_change_log WHERE seq >= OLD.version AND tx = txid_current();
                IF position IS NULL THEN
                    INSERT INTO kioskpad_change_log (at, kind, subject, action, instance)
                    VALUES (extract(epoch FROM clock_timestamp()), '\(ChangedKind.replica.rawValue)', '', '\(ChangeCause.door.rawValue)', '')
                    RETURNING seq INTO position;
                END IF;
                UPDATE kioskpad_replica SET version = position, pending = false WHERE id = 1;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE CONSTRAINT TRIGGER kioskpad_replica_settle AFTER UPDATE OF pending ON kioskpad_replica
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.pending AND NOT OLD.pending) EXECUTE FUNCTION kioskpad_replica_settle()
            """,
            "SELECT setval(pg_get_serial_sequence('kioskpad_change_log', 'seq'), greatest(\(floor), 1))",
            "INSERT INTO kioskpad_change_log (at, kind, subject, action, instance) VALUES (extract(epoch FROM now()), '\(upgradeEntry))",
            settleVersion,
        ]
    }

    /// Schema version 25: PostgreSQL's replica triggers fire for each row, so a statement that
    /// changes no row (an insert that conflicts, an update or delete that matches nothing)
    /// marks nothing and moves no version, as SQLite's triggers, per row from the start, never
    /// did. A door then gets a delta after changes of users alone, where such a statement at
    /// a server's start or a door's request brought it the whole replica.
    func replicaTriggersPerRow() -> [String] {
        guard engine == .postgres else { return [] }
        let perRow = "FOR EACH ROW EXECUTE FUNCTION kioskpad_replica_bump()"
        return [
            "DROP TRIGGER kioskpad_replica_users ON kioskpad_users",
            "CREATE TRIGGER kioskpad_replica_users AFTER INSERT OR DELETE OR UPDATE OF \(Self.usersReplicaColumns) ON kioskpad_users \(perRow)",
        ]
            + (Self.replicaTables + Self.laterReplicaTables).flatMap { table in
                [
                    "DROP TRIGGER \(Self.triggerName(table)) ON \(table)",
                    "CREATE TRIGGER \(Self.triggerName(table)) AFTER INSERT OR UPDATE OR DELETE ON \(table) \(perRow)",
                ]
            }
    }

    /// The replica trigger's name for `table` (SQLite adds `_insert`, `_update`, `_delete`).
    private static func triggerName(_ table: String) -> String {
        table.replacingOccurrences(of: "kioskpad_", with: "kioskpad_replica_")
    }

    private func sqliteUsersTriggers(_ columns: String, body: String) -> [String] {
        [
            sqliteTrigger("kioskpad_replica_users_insert", "INSERT", "kioskpad_users", body),
            sqliteTrigger("kioskpad_replica_users_update", "UPDATE OF \(columns)", "kioskpad_users", body),
            sqliteTrigger("kioskpad_replica_users_delete", "DELETE", "kioskpad_users", body),
        ]
    }

    private func sqliteTriggers(_ table: String, body: String) -> [String] {
        ["insert", "update", "delete"].map { sqliteTrigger("\(Self.triggerName(table))_\($0)", $0.uppercased(), table, body) }
    }

    private func sqliteTrigger(_ name: String, _ change: String, _ table: String, _ body: String) -> String {
        "CREATE TRIGGER \(name) AFTER \(change) ON \(table) BEGIN \(body); END"
    }

    private func postgresTriggerFunction(body: String, replacing: Bool) -> String {
        """
        CREATE \(replacing ? "OR REPLACE " : "")FUNCTION kioskpad_replica_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            \(body);
            RETURN NULL;
        END
        $$
        """
    }

    private func postgresTrigger(_ table: String) -> String {
        "CREATE TRIGGER \(Self.triggerName(table)) AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()"
    }

    private func postgresUsersTrigger(_ columns: String) -> String {
        "CREATE TRIGGER kioskpad_replica_users AFTER INSERT OR DELETE OR UPDATE OF \(columns) ON kioskpad_users FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()"
    }
}
