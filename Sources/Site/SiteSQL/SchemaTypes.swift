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
    private static let bump = "UPDATE kioskpad_replica SET version = version + 1 WHERE id = 1"

    /// Triggers that raise the replica's version on every change of who may enter (users:
    /// only changes of `usersColumns`). SQLite: a trigger per table and change, per row;
    /// PostgreSQL: one function, a trigger per table, per statement.
    func replicaVersionTriggers(usersColumns: String) -> [String] {
        guard engine == .postgres else {
            return [usersTrigger("insert", "INSERT"), usersTrigger("update", "UPDATE OF \(usersColumns)"), usersTrigger("delete", "DELETE")]
                + Self.replicaTables.flatMap { table in
                    ["insert", "update", "delete"].map { change in
                        "CREATE TRIGGER \(table.replacingOccurrences(of: "kioskpad_", with: "kioskpad_replica_"))_\(change) AFTER \(change.uppercased()) ON \(table) BEGIN \(Self.bump); END"
                    }
                }
        }
        return [
            """
            CREATE FUNCTION kioskpad_replica_bump() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                \(Self.bump);
                RETURN NULL;
            END
            $$
            """,
            postgresUsersTrigger(usersColumns),
        ]
            + Self.replicaTables.map { table in
                "CREATE TRIGGER \(table.replacingOccurrences(of: "kioskpad_", with: "kioskpad_replica_")) AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()"
            }
    }

    /// Triggers that raise the replica's version on every change of `table` (a table added
    /// after version 5 whose rows change who may enter); the PostgreSQL function is version 5's.
    func replicaVersionTriggers(table: String) -> [String] {
        let name = table.replacingOccurrences(of: "kioskpad_", with: "kioskpad_replica_")
        guard engine == .postgres else {
            return ["insert", "update", "delete"].map { "CREATE TRIGGER \(name)_\($0) AFTER \($0.uppercased()) ON \(table) BEGIN \(Self.bump); END" }
        }
        return ["CREATE TRIGGER \(name) AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()"]
    }

    /// The users' update trigger again, watching `usersColumns`.
    func replacingUsersTrigger(usersColumns: String) -> [String] {
        engine == .sqlite
            ? ["DROP TRIGGER kioskpad_replica_users_update", usersTrigger("update", "UPDATE OF \(usersColumns)")]
            : ["DROP TRIGGER kioskpad_replica_users ON kioskpad_users", postgresUsersTrigger(usersColumns)]
    }

    private func usersTrigger(_ name: String, _ change: String) -> String {
        "CREATE TRIGGER kioskpad_replica_users_\(name) AFTER \(change) ON kioskpad_users BEGIN \(Self.bump); END"
    }

    private func postgresUsersTrigger(_ columns: String) -> String {
        "CREATE TRIGGER kioskpad_replica_users AFTER INSERT OR DELETE OR UPDATE OF \(columns) ON kioskpad_users FOR EACH STATEMENT EXECUTE FUNCTION kioskpad_replica_bump()"
    }
}
